// What a machine carries of a pipeline (capacity.hpp), the limiter's budget (limiter.hpp)
// and the measures they read: the cores this process may use, its CPU rate.
#include <gtest/gtest.h>

#include <thread>

#include "core/process_usage.hpp"
#include "core/usable_cores.hpp"
#include "pipeline/capacity/capacity.hpp"
#include "pipeline/capacity/limiter.hpp"

namespace fp {
namespace {

CapacityLoad cores(double n) {
  CapacityLoad load;
  load.streams = 1;
  load.cpu_cores = n;
  return load;
}

TEST(Capacity, StreamsThatFitNameTheResourceThatRunsOutFirst) {
  CapacityBudget budget;
  budget.cpu_cores = 14.4;
  budget.gpus = 0.9;
  budget.host_bytes = 100e9;
  CapacityLoad each;
  each.streams = 1;
  each.cpu_cores = 0.36;  // 40 streams of cores
  each.gpus = 0.0219;     // 41 of the GPU
  each.host_bytes = 400e6;
  const StreamsThatFit fit = streams_that_fit(budget, each);
  EXPECT_EQ(fit.streams, 40);
  EXPECT_EQ(fit.limit, CapacityResource::CpuEncode);
  each.gpus = 0.0236;  // 38 of the GPU
  EXPECT_EQ(streams_that_fit(budget, each).streams, 38);
  EXPECT_EQ(streams_that_fit(budget, each).limit, CapacityResource::Gpu);
  // A budget of exactly N streams' worth holds N, not N - 1 by rounding.
  budget.cpu_cores = 0.1 * 3;
  EXPECT_EQ(streams_that_fit(budget, cores(0.1)).streams, 3);
}

TEST(Capacity, AResourceAStreamDoesNotUseIsNeverShort) {
  CapacityBudget budget;
  budget.cpu_cores = 1;
  budget.gpus = 0;  // no GPU at all
  CapacityLoad used = cores(0.9);
  EXPECT_FALSE(first_short(budget, used, cores(0.1)));
  EXPECT_EQ(first_short(budget, used, cores(0.2)), CapacityResource::CpuEncode);
  CapacityLoad gpu_stream = cores(0);
  gpu_stream.gpus = 0.01;
  EXPECT_EQ(first_short(budget, {}, gpu_stream), CapacityResource::Gpu);
}

TEST(Capacity, TheDefaultCpuBudgetLeavesAMargin) {
  EXPECT_DOUBLE_EQ(default_cpu_budget(16), 14.4);
  EXPECT_DOUBLE_EQ(default_cpu_budget(4), 3);
  EXPECT_DOUBLE_EQ(default_cpu_budget(2), 1);
  EXPECT_DOUBLE_EQ(default_cpu_budget(1), 1);    // a single core is given whole
  EXPECT_DOUBLE_EQ(default_cpu_budget(0.5), 0.5);  // a cgroup quota of half a core
}

TEST(Capacity, AMachinesBudgetCountsItsGpus) {
  const CapacityBudget cpu_only = machine_budget(14.4, {}, 100);
  EXPECT_TRUE(std::isinf(cpu_only.gpus));
  EXPECT_DOUBLE_EQ(cpu_only.host_bytes, 80);
  const CapacityBudget two = machine_budget(14.4, {1000, 3000}, 100);
  EXPECT_DOUBLE_EQ(two.gpus, 2 * kGpuBusyShare);
  EXPECT_DOUBLE_EQ(two.device_bytes, 3200);
}

TEST(Capacity, ACostIsReadFromABenchResultNamingWhatIsWrong) {
  const PipelineCost cost = pipeline_cost_from_json(
      R"({"cost": {"fps": 30, "cpu_ms": 12, "gpu_ms": 0.75, "host_bytes": 4e8, "device_bytes": 1e8}, "streams": 7})",
      "cam.json");
  EXPECT_DOUBLE_EQ(cost.load().cpu_cores, 0.36);
  EXPECT_DOUBLE_EQ(cost.load().gpus, 0.0225);
  EXPECT_DOUBLE_EQ(cost.load().host_bytes, 4e8);
  const auto error_of = [](const std::string& text) {
    try {
      pipeline_cost_from_json(text, "cam.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("{").find("cam.json: not a framepipe bench --pipeline result"), std::string::npos);
  EXPECT_NE(error_of(R"({"streams": 7})").find("no \"cost\""), std::string::npos);
  EXPECT_NE(error_of(R"({"cost": {"fps": 30, "cpu_ms": 12, "host_bytes": 1, "device_bytes": 1}})").find("cost.gpu_ms"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cost": {"fps": 30, "cpu_ms": -1, "gpu_ms": 0, "host_bytes": 1, "device_bytes": 1}})")
                .find("cost.cpu_ms: -1 is outside"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cost": {"fps": 0, "cpu_ms": 1, "gpu_ms": 0, "host_bytes": 1, "device_bytes": 1}})")
                .find("cost.fps"),
            std::string::npos);
}

TEST(StreamLimiterBudget, AStreamWhoseLoadDoesNotFitIsRefusedUntilRoomFrees) {
  CapacityBudget budget;
  budget.cpu_cores = 1;
  StreamLimiter limiter(8, budget);
  EXPECT_TRUE(limiter.try_admit(cores(0.4)));
  EXPECT_TRUE(limiter.try_admit(cores(0.4)));
  EXPECT_EQ(limiter.short_of(cores(0.4)), CapacityResource::CpuEncode);
  EXPECT_FALSE(limiter.try_admit(cores(0.4)));
  EXPECT_TRUE(limiter.try_admit(cores(0.2)));  // what fits still does
  EXPECT_DOUBLE_EQ(limiter.used().cpu_cores, 1.0);
  EXPECT_EQ(limiter.running(), 3u);
  limiter.release(cores(0.4));
  EXPECT_TRUE(limiter.try_admit(cores(0.4)));
  // Promised places count: a batch's puts accepted before this one.
  limiter.release(cores(0.4));
  EXPECT_EQ(limiter.short_of(cores(0.2), cores(0.3)), CapacityResource::CpuEncode);
  EXPECT_FALSE(limiter.short_of(cores(0.2), cores(0.2)));
  // A place handed to a replacement holds the replacement's load.
  limiter.transfer(cores(0.2), cores(0.6));
  EXPECT_DOUBLE_EQ(limiter.used().cpu_cores, 1.0);
}

TEST(StreamLimiterBudget, TheFirstStreamRunsWhateverItCosts) {
  CapacityBudget budget;
  budget.cpu_cores = 1;
  StreamLimiter limiter(8, budget);
  EXPECT_FALSE(limiter.short_of(cores(3)));
  EXPECT_TRUE(limiter.try_admit(cores(3)));
  EXPECT_EQ(limiter.short_of(cores(0.01)), CapacityResource::CpuEncode);
}

TEST(StreamLimiterBudget, TheMeasuredCpuCountsWhenItIsTheLarger) {
  CapacityBudget budget;
  budget.cpu_cores = 1;
  StreamLimiter limiter(8, budget);
  ASSERT_TRUE(limiter.try_admit(cores(0.2)));
  limiter.set_measured_cpu(0.9);  // streams of templates without a cost, burning cores
  EXPECT_DOUBLE_EQ(limiter.used().cpu_cores, 0.9);
  EXPECT_EQ(limiter.short_of(cores(0.2)), CapacityResource::CpuEncode);
  EXPECT_FALSE(limiter.short_of(CapacityLoad{}));  // a stream without a cost: the cap alone
  limiter.set_measured_cpu(0.1);
  EXPECT_DOUBLE_EQ(limiter.used().cpu_cores, 0.2);
  EXPECT_FALSE(limiter.short_of(cores(0.8)));
}

TEST(StreamLimiterBudget, TheCapIsTheStreamsResource) {
  StreamLimiter limiter(2);
  EXPECT_DOUBLE_EQ(limiter.budget().streams, 2);
  ASSERT_TRUE(limiter.try_admit());
  ASSERT_TRUE(limiter.try_admit());
  EXPECT_EQ(limiter.short_of({}), CapacityResource::Streams);
}

TEST(UsableCores, ACgroupQuotaIsReadInCores) {
  EXPECT_DOUBLE_EQ(cpu_quota_cores("200000 100000").value_or(0), 2.0);
  EXPECT_DOUBLE_EQ(cpu_quota_cores("50000 100000\n").value_or(0), 0.5);
  EXPECT_FALSE(cpu_quota_cores("max 100000"));
  EXPECT_FALSE(cpu_quota_cores("lots 100000"));
  EXPECT_FALSE(cpu_quota_cores(""));
  EXPECT_FALSE(cpu_quota_cores("100000 0"));
  EXPECT_GE(usable_cores(), 1.0);
  EXPECT_LE(usable_cores(), static_cast<double>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(CpuRateWindow, AveragesTheCoresBusyOverItsWindow) {
  using namespace std::chrono_literals;
  CpuRateWindow rate(10s);
  const auto t0 = CpuRateWindow::Clock::now();
  EXPECT_DOUBLE_EQ(rate.cores(), 0);
  rate.add(t0, 100);
  EXPECT_DOUBLE_EQ(rate.cores(), 0);
  rate.add(t0 + 2s, 104);  // two cores busy
  EXPECT_DOUBLE_EQ(rate.cores(), 2);
  rate.add(t0 + 12s, 105);  // then a tenth of one: the window is 10 s long
  rate.add(t0 + 22s, 106);
  EXPECT_NEAR(rate.cores(), 0.1, 1e-9);
  EXPECT_GT(process_cpu_seconds(), 0);
  EXPECT_GT(resident_bytes(), 0u);
}

}  // namespace
}  // namespace fp
