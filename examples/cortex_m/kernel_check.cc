// The fast int8 kernels against the reference kernels on the Cortex-M4F
// itself: the DSP-instruction loops (SXTAB16, SMLAD, the loops written out
// in assembly) run only here, never on the host, and the shared models
// reach only some of their shapes. Random cases of every op from a fixed
// seed (kernels/optimized/self_check.h and self_check_recurrent.h, the
// generators the host's unit tests use), each compared byte for byte; convolutions also with the output
// overlapping the input as an overlap plan places it. Prints over
// semihosting:
//   kernel check: CONV_2D 329 same, DEPTHWISE_CONV_2D 331 same, ..., SVDF 380 same, LSTM gate 400 same
//   ok
// or the first case that differs, and exits non-zero then.
// scripts/cortex_m.sh runs it under QEMU.
#include <cstdio>

#include "microarena/kernels/optimized/self_check.h"
#include "microarena/kernels/optimized/self_check_recurrent.h"
#include "semihosting.h"

namespace {

using microarena::optimized::self_check::Outcome;
namespace check = microarena::optimized::self_check;

check::Workspace workspace;  // 33 KB, static: the firmware has no heap
check::RecurrentWorkspace recurrent_workspace;  // 15 KB

constexpr int kCasesPerOp = 400;

// Counts the cases of one op that ran; false at the first that differs.
template <typename Case, typename Draw, typename Run, typename Describe, typename Workspace = check::Workspace>
bool CheckOp(const char* op, check::Random& random, Draw draw, Run run, Describe describe, int* ran,
             Workspace& ws = workspace) {
  *ran = 0;
  for (int trial = 0; trial < kCasesPerOp; ++trial) {
    Case c{};
    if (!draw(random, &c)) continue;
    const Outcome outcome = run(c, random, ws);
    if (outcome == Outcome::kTooLarge) continue;
    if (outcome == Outcome::kDifferent) {
      char line[192];
      std::snprintf(line, sizeof(line), "error: %s differs from the reference kernel on ", op);
      semihosting::Write(line);
      describe(c, line, sizeof(line));
      semihosting::Write(line);
      semihosting::Write("\n");
      return false;
    }
    ++*ran;
  }
  return true;
}

// A convolution with its output apart from its input, then (batch 1, when
// it fits) D bytes below it, as an overlap plan places them.
template <typename Case, Outcome (*kCheck)(const Case&, check::Random&, check::Workspace&, check::Placement)>
Outcome CheckBothPlacements(const Case& c, check::Random& random, check::Workspace& ws) {
  const Outcome apart = kCheck(c, random, ws, check::Placement::kApart);
  if (apart != Outcome::kSame) return apart;
  const Outcome overlapped = kCheck(c, random, ws, check::Placement::kOverlapped);
  return overlapped == Outcome::kDifferent ? Outcome::kDifferent : Outcome::kSame;
}

void DescribeWindow(const check::Window& w, char* text, size_t size) {
  std::snprintf(text, size, "filter %ldx%ld stride %ldx%ld dilation %ldx%ld pad %ld,%ld+%ld",
                static_cast<long>(w.filter_height), static_cast<long>(w.filter_width), static_cast<long>(w.stride_h),
                static_cast<long>(w.stride_w), static_cast<long>(w.dilation_h), static_cast<long>(w.dilation_w),
                static_cast<long>(w.pad_h), static_cast<long>(w.pad_w), static_cast<long>(w.pad_after));
}

}  // namespace

int FirmwareMain() {
  check::Random random{20261203};
  int conv = 0;
  int depthwise = 0;
  int fully_connected = 0;
  int pool = 0;
  int add = 0;
  int max_pool = 0;
  int mul = 0;
  int softmax = 0;
  int svdf = 0;
  int lstm_gate = 0;
  const bool same =
      CheckOp<check::ConvCase>(
          "CONV_2D", random, check::RandomConvCase, CheckBothPlacements<check::ConvCase, check::CheckConv>,
          [](const check::ConvCase& c, char* text, size_t size) {
            char window[96];
            DescribeWindow(c.window, window, sizeof(window));
            std::snprintf(text, size, "batches %ld input %ldx%ldx%ld -> %ld groups %ld %s",
                          static_cast<long>(c.batches), static_cast<long>(c.height), static_cast<long>(c.width),
                          static_cast<long>(c.in_channels), static_cast<long>(c.out_channels),
                          static_cast<long>(c.groups), window);
          },
          &conv) &&
      CheckOp<check::DepthwiseCase>(
          "DEPTHWISE_CONV_2D", random, check::RandomDepthwiseCase,
          CheckBothPlacements<check::DepthwiseCase, check::CheckDepthwise>,
          [](const check::DepthwiseCase& c, char* text, size_t size) {
            char window[96];
            DescribeWindow(c.window, window, sizeof(window));
            std::snprintf(text, size, "batches %ld input %ldx%ldx%ld multiplier %ld %s", static_cast<long>(c.batches),
                          static_cast<long>(c.height), static_cast<long>(c.width), static_cast<long>(c.channels),
                          static_cast<long>(c.multiplier), window);
          },
          &depthwise) &&
      CheckOp<check::FullyConnectedCase>(
          "FULLY_CONNECTED", random,
          [](check::Random& r, check::FullyConnectedCase* c) {
            check::RandomFullyConnectedCase(r, c);
            return true;
          },
          check::CheckFullyConnected,
          [](const check::FullyConnectedCase& c, char* text, size_t size) {
            std::snprintf(text, size, "batches %ld depth %ld units %ld", static_cast<long>(c.batches),
                          static_cast<long>(c.depth), static_cast<long>(c.units));
          },
          &fully_connected) &&
      CheckOp<check::PoolCase>(
          "AVERAGE_POOL_2D", random, check::RandomPoolCase, CheckBothPlacements<check::PoolCase, check::CheckAveragePool>,
          [](const check::PoolCase& c, char* text, size_t size) {
            std::snprintf(text, size, "batches %ld input %ldx%ldx%ld filter %ldx%ld", static_cast<long>(c.batches),
                          static_cast<long>(c.height), static_cast<long>(c.width), static_cast<long>(c.channels),
                          static_cast<long>(c.params.filter_height), static_cast<long>(c.params.filter_width));
          },
          &pool) &&
      CheckOp<check::AddCase>(
          "ADD", random, check::RandomAddCase, check::CheckAdd,
          [](const check::AddCase& c, char* text, size_t size) {
            std::snprintf(text, size, "%s of %ld elements", c.subtract ? "SUB" : "ADD", static_cast<long>(c.count));
          },
          &add) &&
      CheckOp<check::PoolCase>(
          "MAX_POOL_2D", random, check::RandomPoolCase, CheckBothPlacements<check::PoolCase, check::CheckMaxPool>,
          [](const check::PoolCase& c, char* text, size_t size) {
            std::snprintf(text, size, "batches %ld input %ldx%ldx%ld filter %ldx%ld stride %ldx%ld",
                          static_cast<long>(c.batches), static_cast<long>(c.height), static_cast<long>(c.width),
                          static_cast<long>(c.channels), static_cast<long>(c.params.filter_height),
                          static_cast<long>(c.params.filter_width), static_cast<long>(c.params.stride_height),
                          static_cast<long>(c.params.stride_width));
          },
          &max_pool) &&
      CheckOp<check::MulCase>(
          "MUL", random, check::RandomMulCase, CheckBothPlacements<check::MulCase, check::CheckMul>,
          [](const check::MulCase& c, char* text, size_t size) {
            std::snprintf(text, size, "%ld elements%s%s", static_cast<long>(c.count),
                          c.scalar1 ? ", input 1 scalar" : "", c.scalar2 ? ", input 2 scalar" : "");
          },
          &mul) &&
      CheckOp<check::SoftmaxCase>(
          "SOFTMAX", random, check::RandomSoftmaxCase, check::CheckSoftmax,
          [](const check::SoftmaxCase& c, char* text, size_t size) {
            std::snprintf(text, size, "%ld rows of %ld to %s%s", static_cast<long>(c.rows), static_cast<long>(c.depth),
                          c.int16_output ? "int16" : "int8", c.flat ? ", flat" : "");
          },
          &softmax) &&
      CheckOp<check::SvdfCase>(
          "SVDF", random, check::RandomSvdfCase, check::CheckSvdf,
          [](const check::SvdfCase& c, char* text, size_t size) { check::Describe(c, text, size); }, &svdf,
          recurrent_workspace) &&
      CheckOp<check::LstmGateCase>(
          "LSTM gate", random, check::RandomLstmGateCase, check::CheckLstmGate,
          [](const check::LstmGateCase& c, char* text, size_t size) { check::Describe(c, text, size); },
          &lstm_gate, recurrent_workspace);
  if (!same) return 1;
  char line[320];
  std::snprintf(line, sizeof(line),
                "kernel check: CONV_2D %d same, DEPTHWISE_CONV_2D %d same, FULLY_CONNECTED %d same, "
                "AVERAGE_POOL_2D %d same, ADD/SUB %d same, MAX_POOL_2D %d same, MUL %d same, SOFTMAX %d same, "
                "SVDF %d same, LSTM gate %d same\n",
                conv, depthwise, fully_connected, pool, add, max_pool, mul, softmax, svdf, lstm_gate);
  semihosting::Write(line);
  semihosting::Write("ok\n");
  return 0;
}
