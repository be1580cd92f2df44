// Reading ncu's CSV: samples in the shape `ncu --csv` prints (details page: a row per kernel
// and metric; raw page: a row per kernel), with the values of the H100 profiles in
// docs/bench/h100-f7460b9-ncu-*.txt, ncu's message lines and the program's output around them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tools/framepipe/bench/ncu_csv.hpp"

namespace fp::bench {
namespace {

constexpr const char* kHeader =
    R"csv("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")csv";

std::string row(const char* id, const char* kernel, const char* block, const char* grid, const char* metric,
                const char* unit, const char* value) {
  std::string line;
  for (const std::string& field : {std::string(id), std::string("2159"), std::string("framepipe"),
                                  std::string("127.0.0.1"), std::string(kernel), std::string("1"), std::string("13"),
                                  std::string(block), std::string(grid), std::string("0"), std::string("9.0"),
                                  std::string("Command line profiler metrics"), std::string(metric), std::string(unit),
                                  std::string(value)})
    line += (line.empty() ? "\"" : ",\"") + field + "\"";
  return line + "\n";
}

constexpr const char* kSpin = "void fp::cuda::(anonymous namespace)::spin_kernel(long long)";
constexpr const char* kNlmeans = "void fp::cuda::(anonymous namespace)::nlmeans_kernel<3>(fp::cuda::(anonymous namespace)::Args)";
constexpr const char* kReduce =
    "void fp::cuda::(anonymous namespace)::reduce_kernel<unsigned char>(fp::ImageView<const T1>, "
    "fp::ImageView<const T1>, fp::ImageView<float>, fp::ImageView<float>)";

// Two cases (nlmeans p7/s21, the first reduce of pyramid_fusion), each after the marker.
std::string details_sample() {
  std::string text =
      "==PROF== Connected to process 2159 (/work/main/build-gpu/bin/framepipe)\n"
      "==PROF== Profiling \"spin_kernel\" - 0: 0%....50%....100% - 3 passes\n"
      "==PROF== Profiling \"nlmeans_kernel\" - 1: 0%....50%....100% - 3 passes\n"
      "a line the profiled program printed, with, commas\n"
      "==PROF== Disconnected from process 2159\n";
  text += std::string(kHeader) + "\n";
  const char* b = "(1, 1, 1)";
  text += row("0", kSpin, b, b, "gpu__time_duration.sum", "nsecond", "2,144");
  text += row("0", kSpin, b, b, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "0.00");
  const char* nb = "(128, 1, 1)";
  const char* ng = "(60, 34, 1)";
  text += row("1", kNlmeans, nb, ng, "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", "0.08");
  text += row("1", kNlmeans, nb, ng, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%", "52.08");
  text += row("1", kNlmeans, nb, ng, "gpu__time_duration.sum", "nsecond", "794,050");
  text += row("1", kNlmeans, nb, ng, "l1tex__throughput.avg.pct_of_peak_sustained_active", "%", "54.16");
  text += row("1", kNlmeans, nb, ng, "lts__throughput.avg.pct_of_peak_sustained_elapsed", "%", "0.37");
  text += row("1", kNlmeans, nb, ng, "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "%", "31.40");
  text += row("1", kNlmeans, nb, ng, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "76.19");
  text += row("2", kSpin, b, b, "gpu__time_duration.sum", "nsecond", "2,112");
  const char* rb = "(32, 8, 1)";
  const char* rg = "(30, 34, 1)";
  text += row("3", kReduce, rb, rg, "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", "9.99");
  text += row("3", kReduce, rb, rg, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%", "27.01");
  text += row("3", kReduce, rb, rg, "gpu__time_duration.sum", "nsecond", "12,420");
  text += row("3", kReduce, rb, rg, "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "%", "n/a");
  text += row("3", kReduce, rb, rg, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "45.00");
  return text;
}

TEST(Csv, QuotedFieldsKeepCommasQuotesAndLineBreaks) {
  const auto records = parse_csv("\"a, b\",\"say \"\"hi\"\"\",\"two\nlines\",plain\r\nx,,\"\"\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0], (std::vector<std::string>{"a, b", "say \"hi\"", "two\nlines", "plain"}));
  EXPECT_EQ(records[1], (std::vector<std::string>{"x", "", ""}));
}

TEST(Csv, NcuMessageLinesAndEmptyLinesAreSkipped) {
  const auto records = parse_csv("==PROF== Connected to process 1\n\n\"a\",\"b\"\n==WARNING== something\n\"c\",\"d\"");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1], (std::vector<std::string>{"c", "d"}));
  // "==" inside a field, or not at a line's start, is data.
  EXPECT_EQ(parse_csv("\"==x\",a==b\n")[0], (std::vector<std::string>{"==x", "a==b"}));
}

TEST(NcuCsv, DetailsPageGroupsMetricsByLaunch) {
  const auto kernels = parse_ncu_csv(details_sample());
  ASSERT_EQ(kernels.size(), 4u);
  EXPECT_EQ(kernels[1].id, "1");
  EXPECT_EQ(kernels[1].name, kNlmeans);
  EXPECT_DOUBLE_EQ(kernels[1].metrics.at("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 76.19);
  EXPECT_DOUBLE_EQ(kernels[1].metrics.at("gpu__time_duration.sum"), 794050);  // thousands separators
  EXPECT_EQ(kernels[1].units.at("gpu__time_duration.sum"), "nsecond");
  // "n/a" is no value.
  EXPECT_EQ(kernels[3].metrics.count("sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"), 0u);
}

TEST(NcuCsv, RawPageHasAColumnPerMetricAndARowOfUnits) {
  const std::string text =
      "==PROF== Disconnected from process 7\n"
      R"csv("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","gpu__time_duration.sum","sm__throughput.avg.pct_of_peak_sustained_elapsed")csv"
      "\n"
      R"csv("","","","","","","","","","","","usecond","%")csv"
      "\n"
      R"csv("0","7","framepipe","127.0.0.1","void (anonymous namespace)::thinning_kernel<8>((anonymous namespace)::Params)","1","13","(256, 1, 1)","(130, 1, 1)","0","9.0","229.60","59.10")csv"
      "\n";
  const auto kernels = parse_ncu_csv(text);
  ASSERT_EQ(kernels.size(), 1u);
  const auto k = bounds_from_ncu(kernels[0]);
  EXPECT_EQ(k.kernel, "thinning_kernel<8>");
  EXPECT_DOUBLE_EQ(*k.sm_pct, 59.10);
  EXPECT_DOUBLE_EQ(*k.duration_us, 229.60);
  EXPECT_FALSE(k.memory_pct.has_value());
}

TEST(NcuCsv, OutputWithoutAReportIsAnError) {
  EXPECT_THROW(parse_ncu_csv("==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM\n"), std::runtime_error);
  EXPECT_THROW(parse_ncu_csv(""), std::runtime_error);
}

TEST(NcuCsv, KernelNamesAreShortened) {
  EXPECT_EQ(short_kernel_name(kNlmeans), "nlmeans_kernel<3>");
  EXPECT_EQ(short_kernel_name(kReduce), "reduce_kernel<unsigned char>");
  EXPECT_EQ(short_kernel_name(kSpin), "spin_kernel");
  // ncu's text report spells the anonymous namespace "unnamed>".
  EXPECT_EQ(short_kernel_name("void unnamed>::nlmeans_kernel<3>(unnamed>::Args)"), "nlmeans_kernel<3>");
  EXPECT_EQ(short_kernel_name("void unnamed>::fuse_collapse_kernel<float, float, 2>(ImageView<const T1>, bool, "
                              "ImageView<T2>, float)"),
            "fuse_collapse_kernel<float, float, 2>");
  EXPECT_EQ(short_kernel_name("plain_kernel"), "plain_kernel");
  EXPECT_EQ(short_kernel_name("_Z6kernelPf"), "_Z6kernelPf");  // mangled: left as it is
}

TEST(NcuCsv, BoundsOfAKernel) {
  const auto kernels = parse_ncu_csv(details_sample());
  const auto nlmeans = bounds_from_ncu(kernels[1]);
  EXPECT_EQ(nlmeans.kernel, "nlmeans_kernel<3>");
  EXPECT_DOUBLE_EQ(*nlmeans.sm_pct, 76.19);
  EXPECT_DOUBLE_EQ(*nlmeans.memory_pct, 52.08);
  EXPECT_DOUBLE_EQ(*nlmeans.dram_pct, 0.08);
  EXPECT_DOUBLE_EQ(*nlmeans.l1_pct, 54.16);
  EXPECT_DOUBLE_EQ(*nlmeans.sfu_pct, 31.40);
  EXPECT_NEAR(*nlmeans.duration_us, 794.05, 1e-9);
  const auto bound = limiting(nlmeans);
  EXPECT_EQ(bound.name, "sm");
  EXPECT_DOUBLE_EQ(bound.pct, 76.19);
}

TEST(NcuCsv, MemoryIsTheBusiestPartWhereTheCombinedMetricIsMissing) {
  NcuKernel k{"0", "k", {}, {}};
  k.metrics["dram__throughput.avg.pct_of_peak_sustained_elapsed"] = 80;
  k.metrics["l1tex__throughput.avg.pct_of_peak_sustained_active"] = 30;
  k.metrics["lts__throughput.avg.pct_of_peak_sustained_elapsed"] = 85;
  EXPECT_DOUBLE_EQ(*bounds_from_ncu(k).memory_pct, 85);
  EXPECT_EQ(limiting(bounds_from_ncu(k)).name, "memory");
}

TEST(NcuCsv, KernelsAreSplitIntoCasesAtTheMarker) {
  const auto cases = split_cases(parse_ncu_csv(details_sample()), "spin_kernel");
  ASSERT_EQ(cases.size(), 2u);
  ASSERT_EQ(cases[0].size(), 1u);
  EXPECT_EQ(cases[0][0].kernel, "nlmeans_kernel<3>");
  ASSERT_EQ(cases[1].size(), 1u);
  EXPECT_EQ(cases[1][0].kernel, "reduce_kernel<unsigned char>");
  EXPECT_FALSE(cases[1][0].sfu_pct.has_value());
  // Kernels before the first marker belong to no case.
  EXPECT_TRUE(split_cases(parse_ncu_csv(details_sample()), "no_such_marker").empty());
}

TEST(NcuCsv, TheMetricsAskedForAreTheOnesRead) {
  const auto& metrics = ncu_bound_metrics();
  NcuKernel k{"0", "k", {}, {}};
  for (const auto& m : metrics) {
    k.metrics[m] = 1;
    k.units[m] = m == "gpu__time_duration.sum" ? "nsecond" : "%";
  }
  const auto b = bounds_from_ncu(k);
  EXPECT_TRUE(b.sm_pct && b.memory_pct && b.sfu_pct && b.dram_pct && b.l1_pct && b.l2_pct && b.duration_us);
  EXPECT_DOUBLE_EQ(*b.duration_us, 1e-3);
}

// The real thing: what ncu 2025.3.1 wrote on the H100 for `framepipe bench --bounds ncu
// --stage nlmeans --stage thinning --stage pyramid_fusion --size 1920x1080` (--ncu-log) at
// commit 34ded9e: six cases, in make_bench_cases' order, each after the marker.
TEST(NcuCsv, RealH100Output) {
  std::ifstream in(std::string(FRAMEPIPE_SOURCE_DIR) + "/tests/bench/data/h100-34ded9e-ncu-bounds.csv");
  ASSERT_TRUE(in) << "tests/bench/data/h100-34ded9e-ncu-bounds.csv";
  std::stringstream text;
  text << in.rdbuf();
  const auto cases = split_cases(parse_ncu_csv(text.str()), "spin_kernel");
  ASSERT_EQ(cases.size(), 6u);
  // nlmeans p7/s21, p5/s15, p3/s11: one launch each, instruction-bound.
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(cases[i].size(), 1u);
    EXPECT_EQ(limiting(cases[i][0]).name, "sm");
  }
  EXPECT_EQ(cases[0][0].kernel, "nlmeans_kernel<3>");
  EXPECT_DOUBLE_EQ(*cases[0][0].sm_pct, 76.04);
  EXPECT_DOUBLE_EQ(*cases[0][0].memory_pct, 51.98);
  EXPECT_DOUBLE_EQ(*cases[0][0].sfu_pct, 36.79);
  EXPECT_NEAR(*cases[0][0].duration_us, 795.136, 1e-9);  // "795,136" ns
  EXPECT_EQ(cases[2][0].kernel, "nlmeans_kernel<1>");
  // pyramid_fusion, both rules: four reduces, four collapses; the level-0 collapse is longest.
  for (std::size_t i = 3; i < 5; ++i) {
    ASSERT_EQ(cases[i].size(), 8u);
    EXPECT_EQ(cases[i][0].kernel, "reduce_kernel<unsigned char>");
    EXPECT_EQ(cases[i][7].kernel.rfind("fuse_collapse_kernel<unsigned char, unsigned char, ", 0), 0u)
        << cases[i][7].kernel;
  }
  EXPECT_EQ(bound_cell(cases[3], false), "SM 68% +7");
  ASSERT_EQ(cases[5].size(), 1u);
  EXPECT_EQ(cases[5][0].kernel, "thinning_kernel<8>");
  EXPECT_DOUBLE_EQ(*cases[5][0].sm_pct, 58.95);
}

}  // namespace
}  // namespace fp::bench
