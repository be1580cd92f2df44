// A non-owning view of one 2D plane: pointer, size and pitch (bytes between rows).
// This header is all that cpu/ and cuda/ know of the project, so it must stay small and
// usable from device code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define FP_HOST_DEVICE __host__ __device__
#else
#define FP_HOST_DEVICE
#endif

namespace fp {

template <class T>
struct ImageView {
  T* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t pitch = 0;  // bytes from one row to the next; >= width * sizeof(T)

  using Byte = std::conditional_t<std::is_const_v<T>, const unsigned char, unsigned char>;

  FP_HOST_DEVICE T* row(int y) const {
    return reinterpret_cast<T*>(reinterpret_cast<Byte*>(data) + static_cast<std::ptrdiff_t>(y) * pitch);
  }
  FP_HOST_DEVICE T& operator()(int x, int y) const { return row(y)[x]; }
  FP_HOST_DEVICE bool empty() const { return width <= 0 || height <= 0; }

  // A view of mutable pixels converts to a view of const pixels, never the other way.
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  FP_HOST_DEVICE operator ImageView<const U>() const {
    return ImageView<const U>{data, width, height, pitch};
  }
};

using ImageU8 = ImageView<std::uint8_t>;
using ConstImageU8 = ImageView<const std::uint8_t>;
using ImageF32 = ImageView<float>;
using ConstImageF32 = ImageView<const float>;

}  // namespace fp
