#include <algorithm>
#include <vector>

#include "cuda/spin.hpp"
#include "cuda/stream.hpp"
#include "tools/framepipe/bench/bench_case.hpp"

namespace fp::bench {

BenchResult time_case(const BenchCase& bench, int warmup_runs, int runs) {
  cuda::Stream stream;
  for (int i = 0; i < warmup_runs; ++i) bench.run(stream.get());
  stream.synchronize();

  // One event pair per run, all recorded first and read afterwards, so the host never
  // stalls the stream between runs and no host time enters the numbers.
  std::vector<cuda::Event> starts(runs);
  std::vector<cuda::Event> stops(runs);
  cuda::spin(20000.0, stream.get());  // 20 ms: time for the host to queue every run below
  for (int i = 0; i < runs; ++i) {
    starts[i].record(stream.get());
    bench.run(stream.get());
    stops[i].record(stream.get());
  }
  stream.synchronize();
  std::vector<double> ms;
  ms.reserve(runs);
  for (int i = 0; i < runs; ++i) ms.push_back(stops[i].elapsed_since(starts[i]));
  std::sort(ms.begin(), ms.end());

  BenchResult result;
  result.bench = bench;
  result.runs = runs;
  result.min_ms = ms.front();
  result.median_ms = runs % 2 == 1 ? ms[runs / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2;
  return result;
}

}  // namespace fp::bench
