// An owning 2D image in host memory, with a chosen pitch (so tests can make pitch != width).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "core/image_view.hpp"

namespace fp {

template <class T>
class HostImage {
 public:
  HostImage() = default;
  // pitch_elems: elements per row; 0 means width (tightly packed).
  HostImage(int width, int height, int pitch_elems = 0, T fill = T{})
      : width_(width), height_(height), pitch_elems_(pitch_elems > 0 ? pitch_elems : width) {
    if (width < 0 || height < 0 || pitch_elems_ < width)
      throw std::invalid_argument("HostImage: bad size or pitch");
    pixels_.assign(static_cast<std::size_t>(pitch_elems_) * static_cast<std::size_t>(height), fill);
  }

  int width() const { return width_; }
  int height() const { return height_; }
  ImageView<T> view() { return {pixels_.data(), width_, height_, pitch_bytes()}; }
  ImageView<const T> view() const { return {pixels_.data(), width_, height_, pitch_bytes()}; }
  T& operator()(int x, int y) { return pixels_[static_cast<std::size_t>(y) * pitch_elems_ + x]; }
  const T& operator()(int x, int y) const { return pixels_[static_cast<std::size_t>(y) * pitch_elems_ + x]; }

 private:
  std::ptrdiff_t pitch_bytes() const { return static_cast<std::ptrdiff_t>(pitch_elems_) * sizeof(T); }

  int width_ = 0;
  int height_ = 0;
  int pitch_elems_ = 0;
  std::vector<T> pixels_;
};

using HostImageU8 = HostImage<std::uint8_t>;
using HostImageF32 = HostImage<float>;

}  // namespace fp
