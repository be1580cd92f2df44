// Device and page-locked allocations that fail with a message a user can act on: how much
// was asked for, on which device, and how much was free — not just "out of memory".
#pragma once

#include <cstddef>

namespace fp::cuda {

// Throw std::runtime_error on failure; release(nullptr) does nothing.
void* allocate_device(std::size_t bytes);
void release_device(void* p) noexcept;
void* allocate_pinned(std::size_t bytes);
void release_pinned(void* p) noexcept;

}  // namespace fp::cuda
