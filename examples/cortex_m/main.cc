// Bare-metal example: a model embedded in flash (model_data.h, written by
// `microarena embed`), run in a static tensor_arena whose size comes from the
// arena header `microarena plan MODEL --header arena_config.h` wrote for that
// model (the build fails if the interpreter options differ from the ones the
// header was measured with; at start-up the model's SHA-256 is checked
// against the header's). Inputs come from the same deterministic generator
// as `microarena run --seed 1` on the host, so the outputs can be compared
// byte for byte. Prints over semihosting:
//   model: 53936 bytes, 13 ops, SHA-256 as in the arena header, verified and planned on the host
//   arena: size 20112 used 20112 persistent 4112 head 16000 temp_peak 1600
//   minimum: 20112 works, 20096 fails (out of memory)
//   stack: load_model 560 allocate_tensors 688 invoke 456
//   ram: arena 20112 + peak stack 688 = 20800
//   instructions: invoke 12345678 (timer ticks 308641 x 40.00 per tick)
//   output 0: 8080...
//   ok
// and exits with status 0 (1 on any error, with the message). A tiled
// firmware (MICROARENA_FIRMWARE_TILED, a header from `plan --tile
// --header`) runs the segments the header names band by band. "minimum" is
// the device's own answer to "how big must the arena be": AllocateTensors in
// an arena of the used size, and again one alignment step smaller.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "arena_config.h"
#include "microarena/model/model_view.h"
#include "microarena/runtime/input_generator.h"
#include "microarena/runtime/interpreter.h"
#if MICROARENA_FIRMWARE_TILED
#include "microarena/runtime/tiled_execution.h"
#endif
#include "model_data.h"
#include "model_resolver.h"
#include "semihosting.h"

namespace {

// A tiled firmware runs the header's segments band by band; any other makes
// no TiledExecution and links none of the tiling.
#if MICROARENA_FIRMWARE_TILED
const microarena::TiledExecution g_tiling(microarena::Span<const microarena::TiledSegment>(
    microarena_arena::TilingOf<microarena::TiledSegment>::segments, microarena_arena::kTensorArenaTilingSegmentCount));
constexpr const microarena::TilingHooks* kTiling = &g_tiling;
#else
constexpr const microarena::TilingHooks* kTiling = nullptr;
#endif

// The options the header was measured with: overlap where it made the
// arena smaller (arena_header.cmake), the tiling when it has one.
constexpr microarena::InterpreterOptions HeaderOptions() {
  microarena::InterpreterOptions options{};
  options.allow_overlap = microarena_arena::kTensorArenaAllowOverlap;
  options.tiling = kTiling;
  return options;
}
constexpr microarena::InterpreterOptions kOptions = HeaderOptions();
MICROARENA_CHECK_INTERPRETER_OPTIONS(kOptions);

// A header with a precomputed plan (`plan --precomputed-plan`) is the lean
// deployment: the host verified the model and planned its head, the device
// checks the model's SHA-256 against the header's, then loads it without the
// flatbuffers verifier and places the tensors without planning (neither is
// linked). Without one, the device verifies and plans itself.
constexpr bool kLean = microarena_arena::kTensorArenaHasPrecomputedPlan;
constexpr microarena::PrecomputedPlan kPlan = microarena_arena::PrecomputedPlanOf<microarena::PrecomputedPlan>();

// The branch not taken is discarded, so its functions are not even referenced.
microarena::Result<microarena::ModelView> Load(microarena::Span<const uint8_t> bytes) {
  if constexpr (kLean) {
    return microarena::LoadVerifiedModel(bytes);
  } else {
    return microarena::LoadModel(bytes);
  }
}

microarena::Status Allocate(microarena::Interpreter& interpreter) {
  if constexpr (kLean) {
    return interpreter.AllocateTensors(kPlan);
  } else {
    return interpreter.AllocateTensors();
  }
}

alignas(microarena_arena::kTensorArenaAlignment) uint8_t tensor_arena[microarena_arena::kTensorArenaSize];

// Stack use per phase, measured: the stack below the caller is painted with
// a pattern, the phase runs, and the deepest word no longer holding the
// pattern is how far the phase's frames reached (interrupts are off).
extern "C" uint32_t __stack_limit[];
constexpr uint32_t kStackPaint = 0xA5C3A5C3u;

__attribute__((always_inline)) inline uintptr_t StackPointer() {
  uintptr_t sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

// Paints from the stack's limit up to just below this function's own frame.
__attribute__((noinline)) void PaintStack() {
  const uintptr_t end = (StackPointer() - 16) & ~uintptr_t{3};
  for (uint32_t* word = __stack_limit; reinterpret_cast<uintptr_t>(word) < end; ++word) *word = kStackPaint;
}

// Bytes between `caller_sp` and the deepest word written since PaintStack.
size_t StackUsedBelow(uintptr_t caller_sp) {
  const uint32_t* word = __stack_limit;
  while (*word == kStackPaint && reinterpret_cast<uintptr_t>(word) < caller_sp) ++word;
  return caller_sp - reinterpret_cast<uintptr_t>(word);
}

// Instructions, counted with the board's CMSDK APB timer 0 (a 32-bit down
// counter on the 25 MHz system clock). Under `qemu-system-arm -icount
// shift=0` virtual time advances 1 ns per instruction, so one tick is 40
// instructions; the factor is measured, not assumed: Calibrate() times a loop
// of known length.
struct CmsdkTimer {
  volatile uint32_t ctrl;
  volatile uint32_t value;
  volatile uint32_t reload;
};
CmsdkTimer* const kTimer0 = reinterpret_cast<CmsdkTimer*>(0x40000000u);

void StartTimer() {
  kTimer0->ctrl = 0;
  kTimer0->reload = 0xFFFFFFFFu;
  kTimer0->value = 0xFFFFFFFFu;
  kTimer0->ctrl = 1;  // enable, no interrupt
}
uint32_t TimerNow() { return kTimer0->value; }

// 2 * `turns` + 1 instructions: a subtract and a taken branch per turn.
__attribute__((noinline)) void KnownLoop(uint32_t turns) {
  asm volatile(
      "1: subs %0, %0, #1\n"
      "   bne 1b\n"
      : "+r"(turns)
      :
      : "cc");
}

// Instructions per timer tick, from two loops whose lengths differ by a known
// count (the call and the reads cancel out), times 1000.
uint32_t InstructionsPerTickX1000() {
  constexpr uint32_t kShort = 100000, kLong = 1100000;
  uint32_t start = TimerNow();
  KnownLoop(kShort);
  const uint32_t short_ticks = start - TimerNow();
  start = TimerNow();
  KnownLoop(kLong);
  const uint32_t long_ticks = start - TimerNow();
  if (long_ticks <= short_ticks) return 0;
  const uint64_t instructions = 2ull * (kLong - kShort);
  return static_cast<uint32_t>(instructions * 1000u / (long_ticks - short_ticks));
}

int Fail(const char* what, const microarena::Status& status) {
  semihosting::Write("error: ");
  semihosting::Write(what);
  semihosting::Write(": ");
  semihosting::Write(status.message());
  semihosting::Write("\n");
  return 1;
}

// "output <index>: <hex bytes>\n", written in pieces.
void PrintHex(size_t index, const uint8_t* bytes, size_t byte_count) {
  char piece[2 * 64 + 1];
  std::snprintf(piece, sizeof(piece), "output %u: ", static_cast<unsigned>(index));
  semihosting::Write(piece);
  static const char kDigits[] = "0123456789abcdef";
  for (size_t start = 0; start < byte_count; start += 64) {
    size_t used = 0;
    for (size_t i = start; i < byte_count && i < start + 64; ++i) {
      piece[used++] = kDigits[bytes[i] >> 4];
      piece[used++] = kDigits[bytes[i] & 0xF];
    }
    piece[used] = '\0';
    semihosting::Write(piece);
  }
  semihosting::Write("\n");
}

}  // namespace

int FirmwareMain() {
  using namespace microarena;
  char line[192];
  if (!microarena_arena::ModelMatches(g_model, g_model_size)) {
    semihosting::Write("error: the embedded model is not the one the arena header was generated for\n");
    return 1;
  }
  uintptr_t sp = StackPointer();
  PaintStack();
  Result<ModelView> model = Load(Span<const uint8_t>(g_model, g_model_size));
  const size_t load_stack = StackUsedBelow(sp);
  if (!model.ok()) return Fail("LoadModel", model.status());
  std::snprintf(line, sizeof(line), "model: %u bytes, %u ops, SHA-256 as in the arena header, %s\n", g_model_size,
                static_cast<unsigned>(model->subgraph(0).operator_count()),
                kLean ? "verified and planned on the host" : "verified and planned on the device");
  semihosting::Write(line);

  // Only this model's kernels (model_resolver.h, from `microarena embed --resolver`).
  Interpreter interpreter(*model, microarena_model::ModelOpResolver(), tensor_arena, sizeof(tensor_arena), kOptions);
  sp = StackPointer();
  PaintStack();
  Status allocated = Allocate(interpreter);
  const size_t allocate_stack = StackUsedBelow(sp);
  if (!allocated.ok()) return Fail("AllocateTensors", allocated);
  std::snprintf(line, sizeof(line), "arena: size %u used %u persistent %u head %u temp_peak %u\n",
                static_cast<unsigned>(sizeof(tensor_arena)), static_cast<unsigned>(interpreter.arena_used_bytes()),
                static_cast<unsigned>(interpreter.arena_persistent_size()),
                static_cast<unsigned>(interpreter.arena_scratch_size()),
                static_cast<unsigned>(interpreter.arena_temp_peak()));
  semihosting::Write(line);

  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    EvalTensor* input = interpreter.input(i);
    GenerateInput(1, input->type, input->data, interpreter.input_bytes(i));
  }
  // One Invoke (a second would see inputs the first overwrote, and state
  // it changed), measured for stack and, between the painting and the scan,
  // for instructions.
  StartTimer();
  const uint32_t per_tick_x1000 = InstructionsPerTickX1000();
  sp = StackPointer();
  PaintStack();
  const uint32_t invoke_start = TimerNow();
  Status invoked = interpreter.Invoke();
  const uint32_t invoke_ticks = invoke_start - TimerNow();
  const size_t invoke_stack = StackUsedBelow(sp);
  if (!invoked.ok()) return Fail("Invoke", invoked);
  std::snprintf(line, sizeof(line), "stack: load_model %u allocate_tensors %u invoke %u\n",
                static_cast<unsigned>(load_stack), static_cast<unsigned>(allocate_stack),
                static_cast<unsigned>(invoke_stack));
  semihosting::Write(line);
  size_t peak_stack = load_stack > allocate_stack ? load_stack : allocate_stack;
  if (invoke_stack > peak_stack) peak_stack = invoke_stack;
  std::snprintf(line, sizeof(line), "ram: arena %u + peak stack %u = %u\n", static_cast<unsigned>(sizeof(tensor_arena)),
                static_cast<unsigned>(peak_stack), static_cast<unsigned>(sizeof(tensor_arena) + peak_stack));
  semihosting::Write(line);
  std::snprintf(line, sizeof(line), "instructions: invoke %lu (timer ticks %lu x %lu.%03lu per tick)\n",
                static_cast<unsigned long>(static_cast<uint64_t>(invoke_ticks) * per_tick_x1000 / 1000u),
                static_cast<unsigned long>(invoke_ticks), static_cast<unsigned long>(per_tick_x1000 / 1000u),
                static_cast<unsigned long>(per_tick_x1000 % 1000u));
  semihosting::Write(line);
  for (size_t o = 0; o < interpreter.outputs_size(); ++o) {
    PrintHex(o, interpreter.output(o)->data, interpreter.output_bytes(o));
  }

  // The smallest arena on this device: the used size must work and one
  // alignment step less must fail. (The interpreter above is done with the
  // arena; each try builds a new one in the same buffer.)
  const size_t minimum = interpreter.arena_used_bytes();
  const size_t step = microarena_arena::kTensorArenaAlignment;
  Interpreter at_minimum(*model, microarena_model::ModelOpResolver(), tensor_arena, minimum, kOptions);
  Status fits = Allocate(at_minimum);
  if (!fits.ok()) return Fail("AllocateTensors in the used size", fits);
  Interpreter below(*model, microarena_model::ModelOpResolver(), tensor_arena, minimum - step, kOptions);
  Status too_small = Allocate(below);
  if (too_small.ok() || too_small.code() != ErrorCode::kOutOfMemory) {
    return Fail("AllocateTensors one alignment step below the used size did not run out of memory", too_small);
  }
  std::snprintf(line, sizeof(line), "minimum: %u works, %u fails (out of memory)\n", static_cast<unsigned>(minimum),
                static_cast<unsigned>(minimum - step));
  semihosting::Write(line);
  semihosting::Write("ok\n");
  return 0;
}
