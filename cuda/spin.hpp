// Keeps a stream busy for a while. The benchmark enqueues this first so the host can queue
// every timed run before the GPU reaches them: the events then time GPU work alone, not
// the host's launch latency.
#pragma once

#include <cuda_runtime.h>

namespace fp::cuda {

void spin(double microseconds, cudaStream_t stream);

}  // namespace fp::cuda
