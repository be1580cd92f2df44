#include "cpu/motion_search.hpp"

#include <stdexcept>

#include "cpu/parallel.hpp"

namespace fp::cpu {

void MotionPyramid::build(ConstImageU8 frame) {
  ConstImageU8 finer = frame;
  for (int l = 1; l < ops::kMotionLevels; ++l) {
    const int w = ops::motion_level_size(frame.width, l);
    const int h = ops::motion_level_size(frame.height, l);
    auto& pixels = pixels_[static_cast<std::size_t>(l)];
    pixels.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    const ImageU8 level{pixels.data(), w, h, w};
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) level(x, y) = ops::halved_pixel(finer, x, y);
    views_[static_cast<std::size_t>(l)] = level;
    finer = level;
  }
}

ConstImageU8 MotionPyramid::level(ConstImageU8 frame, int l) const {
  return l == 0 ? frame : views_[static_cast<std::size_t>(l)];
}

namespace {

struct Best {
  std::int32_t sad = 0;
  int x = 0;
  int y = 0;
  bool set = false;
  void offer(std::int32_t sad_candidate, int vx, int vy) {
    if (set && !ops::motion_better(sad_candidate, vx, vy, sad, x, y)) return;
    *this = {sad_candidate, vx, vy, true};
  }
};

// One block, coarse to fine.
Best search_block(const std::array<ConstImageU8, ops::kMotionLevels>& cur,
                  const std::array<ConstImageU8, ops::kMotionLevels>& prev, int bx, int by) {
  constexpr int kTop = ops::kMotionLevels - 1;
  Best best;
  const int top_range = ops::kMotionRange >> kTop;
  for (int vy = -top_range; vy <= top_range; ++vy)
    for (int vx = -top_range; vx <= top_range; ++vx)
      best.offer(ops::block_sad(cur[kTop], prev[kTop], kTop, bx, by, vx, vy), vx, vy);
  for (int l = kTop - 1; l >= 0; --l) {
    const int range = ops::kMotionRange >> l;
    const int cx = 2 * best.x;
    const int cy = 2 * best.y;
    Best finer;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int vx = cx + dx;
        const int vy = cy + dy;
        if (vx < -range || vx > range || vy < -range || vy > range) continue;
        finer.offer(ops::block_sad(cur[l], prev[l], l, bx, by, vx, vy), vx, vy);
      }
    if (l == 0) finer.offer(ops::block_sad(cur[0], prev[0], 0, bx, by, 0, 0), 0, 0);
    best = finer;
  }
  return best;
}

}  // namespace

void motion_search(ConstImageU8 current, const MotionPyramid& current_levels, ConstImageU8 previous,
                   const MotionPyramid& previous_levels, bool motion, MotionField& out) {
  if (current.width != previous.width || current.height != previous.height)
    throw std::invalid_argument("motion_search: the frames differ in size");
  out.blocks_x = ops::motion_blocks(current.width);
  out.blocks_y = ops::motion_blocks(current.height);
  out.vectors.assign(static_cast<std::size_t>(out.blocks_x) * static_cast<std::size_t>(out.blocks_y), {});
  out.sads.assign(out.vectors.size(), 0);
  auto& sads = out.sads;
  std::array<ConstImageU8, ops::kMotionLevels> cur{};
  std::array<ConstImageU8, ops::kMotionLevels> prev{};
  for (int l = 0; l < ops::kMotionLevels; ++l) {
    cur[static_cast<std::size_t>(l)] = current_levels.level(current, l);
    prev[static_cast<std::size_t>(l)] = previous_levels.level(previous, l);
  }
  parallel_rows(out.blocks_y, [&](int begin, int end) {
    for (int by = begin; by < end; ++by)
      for (int bx = 0; bx < out.blocks_x; ++bx) {
        const std::size_t i = static_cast<std::size_t>(by) * out.blocks_x + bx;
        if (!motion) {
          sads[i] = ops::block_sad(current, previous, 0, bx, by, 0, 0);
          continue;
        }
        const Best best = search_block(cur, prev, bx, by);
        out.vectors[i] = {static_cast<std::int16_t>(best.x), static_cast<std::int16_t>(best.y)};
        sads[i] = best.sad;
      }
  });
  out.sad = 0;
  for (const std::int32_t s : sads) out.sad += s;
}

}  // namespace fp::cpu
