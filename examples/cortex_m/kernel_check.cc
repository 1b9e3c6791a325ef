// The fast int8 and 16x8 kernels against the reference kernels on the
// Cortex-M4F itself: the DSP-instruction loops (SXTAB16, SMLAD, the loops written out
// in assembly) run only here, never on the host, and the shared models
// reach only some of their shapes. Random cases of every op from a fixed
// seed (kernels/optimized/self_check.h, self_check_recurrent.h and
// self_check_int16.h, the generators the host's unit tests use), each
// compared byte for byte; convolutions and pools also with the output
// overlapping the input as an overlap plan places it, MUL in place. Prints
// over semihosting:
//   kernel check: CONV_2D 329 same, DEPTHWISE_CONV_2D 331 same, ..., SVDF 326 same,
//   LSTM gate 389 same, CONV_2D 16x8 371 same, ..., FULLY_CONNECTED 16x8 400 same
//   ok
// or the first case that differs, and exits non-zero then.
// scripts/cortex_m.sh runs it under QEMU.
#include <cstdio>
#include <new>

#include "microarena/kernels/optimized/self_check.h"
#include "microarena/kernels/optimized/self_check_int16.h"
#include "microarena/kernels/optimized/self_check_recurrent.h"
#include "semihosting.h"

namespace {

using microarena::optimized::self_check::Outcome;
namespace check = microarena::optimized::self_check;

// 35 KB, static: the firmware has no heap. The recurrent and 16x8 checks
// run after the int8 ones and reuse their bytes (neither workspace is
// larger).
union Workspaces {
  check::Workspace int8;
  check::RecurrentWorkspace recurrent;
  check::Workspace16 int16;
};
static_assert(sizeof(check::Workspace16) <= sizeof(check::Workspace), "the 16x8 checks add no RAM");
static_assert(sizeof(check::RecurrentWorkspace) <= sizeof(check::Workspace), "the recurrent checks add no RAM");
Workspaces workspaces;

constexpr int kCasesPerOp = 400;

// Counts the cases of one op that ran; false at the first that differs.
template <typename Case, typename Workspace, typename Draw, typename Run, typename Describe>
bool CheckOp(const char* op, check::Random& random, Workspace& workspace, Draw draw, Run run, Describe describe,
             int* ran) {
  *ran = 0;
  for (int trial = 0; trial < kCasesPerOp; ++trial) {
    Case c{};
    if (!draw(random, &c)) continue;
    const Outcome outcome = run(c, random, workspace);
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
template <typename Case, typename Workspace, Outcome (*kCheck)(const Case&, check::Random&, Workspace&, check::Placement)>
Outcome CheckBothPlacements(const Case& c, check::Random& random, Workspace& ws) {
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
  const bool same =
      CheckOp<check::ConvCase>(
          "CONV_2D", random, workspaces.int8, check::RandomConvCase, CheckBothPlacements<check::ConvCase, check::Workspace, check::CheckConv>,
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
          "DEPTHWISE_CONV_2D", random, workspaces.int8, check::RandomDepthwiseCase,
          CheckBothPlacements<check::DepthwiseCase, check::Workspace, check::CheckDepthwise>,
          [](const check::DepthwiseCase& c, char* text, size_t size) {
            char window[96];
            DescribeWindow(c.window, window, sizeof(window));
            std::snprintf(text, size, "batches %ld input %ldx%ldx%ld multiplier %ld %s", static_cast<long>(c.batches),
                          static_cast<long>(c.height), static_cast<long>(c.width), static_cast<long>(c.channels),
                          static_cast<long>(c.multiplier), window);
          },
          &depthwise) &&
      CheckOp<check::FullyConnectedCase>(
          "FULLY_CONNECTED", random, workspaces.int8,
          [](check::Random& r, check::FullyConnectedCase* c) {
            check::RandomFullyConnectedCase(r, c);
            return true;
          },
          check::CheckFullyConnected,
          [](const check::FullyConnectedCase& c, char* text, size_t size) {
            std::snprintf(text, size, "batches %ld depth %ld units %ld per-channel %d", static_cast<long>(c.batches),
                          static_cast<long>(c.depth), static_cast<long>(c.units), c.per_channel ? 1 : 0);
          },
          &fully_connected) &&
      CheckOp<check::PoolCase>(
          "AVERAGE_POOL_2D", random, workspaces.int8, check::RandomPoolCase,
          CheckBothPlacements<check::PoolCase, check::Workspace, check::CheckAveragePool>,
          [](const check::PoolCase& c, char* text, size_t size) {
            std::snprintf(text, size, "batches %ld input %ldx%ldx%ld filter %ldx%ld", static_cast<long>(c.batches),
                          static_cast<long>(c.height), static_cast<long>(c.width), static_cast<long>(c.channels),
                          static_cast<long>(c.params.filter_height), static_cast<long>(c.params.filter_width));
          },
          &pool) &&
      CheckOp<check::AddCase>(
          "ADD", random, workspaces.int8, check::RandomAddCase, check::CheckAdd,
          [](const check::AddCase& c, char* text, size_t size) {
            std::snprintf(text, size, "%s of %ld elements", c.subtract ? "SUB" : "ADD", static_cast<long>(c.count));
          },
          &add) &&
      CheckOp<check::PoolCase>(
          "MAX_POOL_2D", random, workspaces.int8, check::RandomPoolCase,
          CheckBothPlacements<check::PoolCase, check::Workspace, check::CheckMaxPool>,
          [](const check::PoolCase& c, char* text, size_t size) {
            std::snprintf(text, size, "batches %ld input %ldx%ldx%ld filter %ldx%ld stride %ldx%ld",
                          static_cast<long>(c.batches), static_cast<long>(c.height), static_cast<long>(c.width),
                          static_cast<long>(c.channels), static_cast<long>(c.params.filter_height),
                          static_cast<long>(c.params.filter_width), static_cast<long>(c.params.stride_height),
                          static_cast<long>(c.params.stride_width));
          },
          &max_pool) &&
      CheckOp<check::MulCase>(
          "MUL", random, workspaces.int8, check::RandomMulCase,
          CheckBothPlacements<check::MulCase, check::Workspace, check::CheckMul>,
          [](const check::MulCase& c, char* text, size_t size) {
            std::snprintf(text, size, "%ld elements%s%s", static_cast<long>(c.count),
                          c.scalar1 ? ", input 1 scalar" : "", c.scalar2 ? ", input 2 scalar" : "");
          },
          &mul) &&
      CheckOp<check::SoftmaxCase>(
          "SOFTMAX", random, workspaces.int8, check::RandomSoftmaxCase, check::CheckSoftmax,
          [](const check::SoftmaxCase& c, char* text, size_t size) {
            std::snprintf(text, size, "%ld rows of %ld to %s%s", static_cast<long>(c.rows), static_cast<long>(c.depth),
                          c.int16_output ? "int16" : "int8", c.flat ? ", flat" : "");
          },
          &softmax);
  if (!same) return 1;
  // The recurrent paths, in the same bytes.
  check::RecurrentWorkspace& recurrent = *new (&workspaces.recurrent) check::RecurrentWorkspace;
  int svdf = 0;
  int lstm_gate = 0;
  const bool same_recurrent =
      CheckOp<check::SvdfCase>(
          "SVDF", random, recurrent, check::RandomSvdfCase, check::CheckSvdf,
          [](const check::SvdfCase& c, char* text, size_t size) { check::Describe(c, text, size); }, &svdf) &&
      CheckOp<check::LstmGateCase>(
          "LSTM gate", random, recurrent, check::RandomLstmGateCase, check::CheckLstmGate,
          [](const check::LstmGateCase& c, char* text, size_t size) { check::Describe(c, text, size); },
          &lstm_gate);
  if (!same_recurrent) return 1;
  // The 16x8 paths, in the same bytes.
  check::Workspace16& workspace16 = *new (&workspaces.int16) check::Workspace16;
  int conv16 = 0;
  int depthwise16 = 0;
  int fully_connected16 = 0;
  const bool same16 =
      CheckOp<check::Conv16Case>(
          "CONV_2D 16x8", random, workspace16, check::RandomConv16Case,
          CheckBothPlacements<check::Conv16Case, check::Workspace16, check::CheckConv16>,
          [](const check::Conv16Case& c16, char* text, size_t size) {
            const check::ConvCase& c = c16.shape;
            char window[96];
            DescribeWindow(c.window, window, sizeof(window));
            std::snprintf(text, size, "batches %ld input %ldx%ldx%ld -> %ld groups %ld %s bias %d operands %d",
                          static_cast<long>(c.batches), static_cast<long>(c.height), static_cast<long>(c.width),
                          static_cast<long>(c.in_channels), static_cast<long>(c.out_channels),
                          static_cast<long>(c.groups), window, static_cast<int>(c16.bias),
                          static_cast<int>(c16.operands));
          },
          &conv16) &&
      CheckOp<check::Depthwise16Case>(
          "DEPTHWISE_CONV_2D 16x8", random, workspace16, check::RandomDepthwise16Case,
          CheckBothPlacements<check::Depthwise16Case, check::Workspace16, check::CheckDepthwise16>,
          [](const check::Depthwise16Case& c16, char* text, size_t size) {
            const check::DepthwiseCase& c = c16.shape;
            char window[96];
            DescribeWindow(c.window, window, sizeof(window));
            std::snprintf(text, size, "batches %ld input %ldx%ldx%ld multiplier %ld %s operands %d",
                          static_cast<long>(c.batches), static_cast<long>(c.height), static_cast<long>(c.width),
                          static_cast<long>(c.channels), static_cast<long>(c.multiplier), window,
                          static_cast<int>(c16.operands));
          },
          &depthwise16) &&
      CheckOp<check::FullyConnected16Case>(
          "FULLY_CONNECTED 16x8", random, workspace16, check::RandomFullyConnected16Case,
          check::CheckFullyConnected16,
          [](const check::FullyConnected16Case& c16, char* text, size_t size) {
            std::snprintf(text, size, "batches %ld depth %ld units %ld bias %d operands %d per-channel %d",
                          static_cast<long>(c16.shape.batches), static_cast<long>(c16.shape.depth),
                          static_cast<long>(c16.shape.units), static_cast<int>(c16.bias),
                          static_cast<int>(c16.operands), c16.shape.per_channel ? 1 : 0);
          },
          &fully_connected16);
  if (!same16) return 1;
  char line[416];
  std::snprintf(line, sizeof(line),
                "kernel check: CONV_2D %d same, DEPTHWISE_CONV_2D %d same, FULLY_CONNECTED %d same, "
                "AVERAGE_POOL_2D %d same, ADD/SUB %d same, MAX_POOL_2D %d same, MUL %d same, SOFTMAX %d same, "
                "SVDF %d same, LSTM gate %d same, CONV_2D 16x8 %d same, DEPTHWISE_CONV_2D 16x8 %d same, "
                "FULLY_CONNECTED 16x8 %d same\n",
                conv, depthwise, fully_connected, pool, add, max_pool, mul, softmax, svdf, lstm_gate, conv16,
                depthwise16, fully_connected16);
  semihosting::Write(line);
  semihosting::Write("ok\n");
  return 0;
}
