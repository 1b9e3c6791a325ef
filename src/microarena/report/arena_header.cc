#include "microarena/report/arena_header.h"

#include <fmt/format.h>

#include <cctype>
#include <vector>

#include "microarena/report/format.h"

namespace microarena::report {
namespace {

// The part of the header that does not depend on the model: a constexpr
// SHA-256 (FIPS 180-4) and the comparisons the check macros use. Written for g++/clang -std=c++17 with
// -Wall -Wextra -Wconversion -Wsign-conversion -Wold-style-cast clean.
constexpr const char* kHeaderCode = R"(
namespace detail {

struct Sha256State {
  uint32_t words[8];
};

constexpr uint32_t kSha256RoundConstants[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

constexpr uint32_t Rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32u - n)); }

// Byte `i` of the padded message: the data, 0x80, zeros, then the length in
// bits as a 64-bit big-endian number, filling whole 64-byte blocks.
template <typename Byte>
constexpr uint32_t PaddedByte(const Byte* data, size_t size, size_t i) {
  if (i < size) return static_cast<uint32_t>(static_cast<unsigned char>(data[i]));
  if (i == size) return 0x80u;
  const size_t padded = ((size + 8u) / 64u + 1u) * 64u;
  if (i + 8u < padded) return 0u;
  const unsigned shift = static_cast<unsigned>(8u * (padded - 1u - i));
  const unsigned long long bits = static_cast<unsigned long long>(size) * 8ull;
  return shift >= 64u ? 0u : static_cast<uint32_t>((bits >> shift) & 0xffu);
}

// SHA-256 of `size` bytes; usable at compile time and at run time. About
// 4 s of g++ 12 per 50 KB when evaluated at compile time.
template <typename Byte>
constexpr Sha256State Sha256(const Byte* data, size_t size) {
  Sha256State state{{0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu,
                     0x5be0cd19u}};
  const size_t blocks = (size + 8u) / 64u + 1u;
  for (size_t block = 0; block < blocks; ++block) {
    uint32_t w[64] = {};
    const size_t base = block * 64u;
    for (size_t t = 0; t < 16; ++t) {
      const size_t i = base + 4u * t;
      if (i + 4u <= size) {
        w[t] = (static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << 24) |
               (static_cast<uint32_t>(static_cast<unsigned char>(data[i + 1u])) << 16) |
               (static_cast<uint32_t>(static_cast<unsigned char>(data[i + 2u])) << 8) |
               static_cast<uint32_t>(static_cast<unsigned char>(data[i + 3u]));
      } else {
        w[t] = (PaddedByte(data, size, i) << 24) | (PaddedByte(data, size, i + 1u) << 16) |
               (PaddedByte(data, size, i + 2u) << 8) | PaddedByte(data, size, i + 3u);
      }
    }
    for (size_t t = 16; t < 64; ++t) {
      const uint32_t s0 = Rotr(w[t - 15], 7) ^ Rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const uint32_t s1 = Rotr(w[t - 2], 17) ^ Rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = state.words[0], b = state.words[1], c = state.words[2], d = state.words[3];
    uint32_t e = state.words[4], f = state.words[5], g = state.words[6], h = state.words[7];
    for (size_t t = 0; t < 64; ++t) {
      const uint32_t t1 =
          h + (Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25)) + ((e & f) ^ (~e & g)) + kSha256RoundConstants[t] + w[t];
      const uint32_t t2 = (Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state.words[0] += a;
    state.words[1] += b;
    state.words[2] += c;
    state.words[3] += d;
    state.words[4] += e;
    state.words[5] += f;
    state.words[6] += g;
    state.words[7] += h;
  }
  return state;
}

constexpr bool SameText(const char* a, const char* b) {
  size_t i = 0;
  for (; a[i] != '\0' && b[i] != '\0'; ++i) {
    if (a[i] != b[i]) return false;
  }
  return a[i] == b[i];
}

}  // namespace detail

// Whether `size` bytes at `data` are the model the figures were measured for
// (its size, then its SHA-256). Constexpr: use it in static_assert (see
// MICROARENA_CHECK_MODEL) or call it at start-up for a model that is not
// constexpr.
template <typename Byte>
constexpr bool ModelMatches(const Byte* data, size_t size) {
  static_assert(sizeof(Byte) == 1, "the model must be an array of bytes");
  if (size != kModelSizeBytes) return false;
  const detail::Sha256State digest = detail::Sha256(data, size);
  for (size_t i = 0; i < 8; ++i) {
    if (digest.words[i] != kModelSha256Words[i]) return false;
  }
  return true;
}
template <typename Byte, size_t N>
constexpr bool ModelMatches(const Byte (&model)[N]) {
  return ModelMatches(&model[0], N);
}
template <typename Byte, size_t N>
constexpr bool ModelSizeMatches(const Byte (&)[N]) {
  return N * sizeof(Byte) == kModelSizeBytes;
}

// Whether a planner name and alignment are the ones measured with. "auto"
// matches when it resolves to the planner measured with for this model.
constexpr bool OptionsMatch(const char* planner_name, size_t alignment_bytes) {
  // With a precomputed plan the device plans nothing: any planner option does.
  const bool planner_ok = kTensorArenaHasPrecomputedPlan || detail::SameText(planner_name, kTensorArenaPlanner) ||
                          (kTensorArenaAutoPlannerMatches && detail::SameText(planner_name, "auto"));
  return planner_ok && alignment_bytes == kTensorArenaAlignment;
}

// Whether this build's pointers are the target's the figures are for.
constexpr bool TargetMatches() { return sizeof(void*) == kTensorArenaPointerBytes; }

// Whether a constexpr microarena::InterpreterOptions (or any struct with the
// same fields, `tiling` among them) is the one measured with.
template <typename Options>
constexpr bool InterpreterOptionsMatch(const Options& options) {
  const int planner = static_cast<int>(options.planner);
  const bool planner_ok = kTensorArenaHasPrecomputedPlan || planner == kTensorArenaPlannerChoice || (kTensorArenaAutoPlannerMatches && planner == 0);
  return planner_ok && options.alignment_bytes == kTensorArenaAlignment &&
         options.copy_weights_to_arena == kTensorArenaCopyWeights &&
         options.preserve_all_tensors == kTensorArenaPreserveAllTensors &&
         options.allow_overlap == kTensorArenaAllowOverlap && (options.tiling != nullptr) == kTensorArenaTiled;
}
)";

// The check macros, shared by every header (guarded: a firmware may include
// the headers of several models, each in its own namespace).
constexpr const char* kCheckMacros = R"(
#ifndef MICROARENA_CHECK_MODEL_IN
// Fails the build when `model_array` (a constexpr byte array) is not the
// model the namespace `ns` was generated for.
#define MICROARENA_CHECK_MODEL_IN(ns, model_array)                                                       \
  static_assert(ns::ModelSizeMatches(model_array),                                                      \
                "the model's size differs from the one " #ns " was measured for: re-run microarena plan " \
                "MODEL --header FILE");                                                                   \
  static_assert(ns::ModelMatches(model_array),                                                          \
                "the model's SHA-256 differs from the one " #ns " was measured for: re-run microarena "   \
                "plan MODEL --header FILE")
// Fails the build when the planner name or alignment differ from the ones measured with.
#define MICROARENA_CHECK_OPTIONS_IN(ns, planner_name, alignment_bytes)                                    \
  static_assert(ns::OptionsMatch(planner_name, alignment_bytes),                                        \
                "planner or alignment differ from the ones " #ns " was measured with: use them, or re-run " \
                "microarena plan MODEL --planner P --align A --header FILE");                             \
  MICROARENA_CHECK_TARGET_IN(ns)
// Fails the build when the figures are for a target with other pointers.
#define MICROARENA_CHECK_TARGET_IN(ns)                                                                    \
  static_assert(ns::TargetMatches(),                                                                    \
                "the arena figures of " #ns " are for a target with other pointers than this build's: "  \
                "re-run microarena plan MODEL --target T --header FILE")
// Fails the build when a constexpr InterpreterOptions differs from the one measured with.
#define MICROARENA_CHECK_INTERPRETER_OPTIONS_IN(ns, options)                                           \
  static_assert(ns::InterpreterOptionsMatch(options),                                                 \
                "interpreter options (planner, alignment, copy/preserve/overlap flags, tiling) "                 \
                "differ from the ones " #ns " was measured with: re-run microarena plan --header");      \
  MICROARENA_CHECK_TARGET_IN(ns)
#endif
)";

int PlannerChoiceNumber(PlannerChoice choice) { return static_cast<int>(choice); }

// `name` as a constexpr array of at least one element (C++ has no empty
// arrays; the count says how many are real), 8 per line.
std::string OffsetArray(const char* name, const std::vector<uint32_t>& values) {
  std::string out = fmt::format("inline constexpr uint32_t {}[{}] = {{", name, values.empty() ? 1 : values.size());
  if (values.empty()) out += "0";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i % 8 == 0) out += "\n   ";
    out += values[i] == PrecomputedPlan::kNotInHead ? " kNotInHead" : fmt::format(" {}u", values[i]);
    if (i + 1 < values.size()) out += ",";
  }
  out += "};\n";
  return out;
}

// Whether the figures are for a tiled run, and its segments (always
// defined, so a firmware can use `if constexpr (kTensorArenaTiled)`).
std::string TilingCode(const std::vector<TiledSegment>& tiling) {
  std::string out = fmt::format(
      "// Whether the figures are for the model run tiled (`plan --tile --header`): segments of ops\n"
      "// run band by band, so their feature maps never exist whole. The firmware then makes a\n"
      "// microarena::TiledExecution over TilingOf<microarena::TiledSegment>::segments (the first\n"
      "// kTensorArenaTilingSegmentCount) and sets InterpreterOptions::tiling to it; the options\n"
      "// check fails the build when it does not (or when it does for a header without a tiling).\n"
      "constexpr bool kTensorArenaTiled = {};\n"
      "constexpr size_t kTensorArenaTilingSegmentCount = {};\n"
      "// Each segment: first op, last op (inclusive), rows of its last op's output per band.\n"
      "template <typename Segment>\n"
      "struct TilingOf {{\n"
      "  static constexpr Segment segments[{}] = {{",
      tiling.empty() ? "false" : "true", tiling.size(), tiling.empty() ? 1 : tiling.size());
  if (tiling.empty()) out += "{0, 0, 0}";
  for (size_t i = 0; i < tiling.size(); ++i) {
    out += fmt::format("{}{{{}, {}, {}}}", i == 0 ? "" : ", ", tiling[i].first_op, tiling[i].last_op,
                       tiling[i].band_rows);
  }
  out += "};\n};\n";
  return out;
}

// The precomputed plan's arrays and PrecomputedPlanOf (always defined, so a
// firmware can use `if constexpr (kTensorArenaHasPrecomputedPlan)`).
std::string PrecomputedPlanCode(const PrecomputedPlanData* plan) {
  std::string out = fmt::format(
      "// Whether the head's layout below was computed ahead of time (`plan --precomputed-plan`): then\n"
      "// AllocateTensors(PrecomputedPlanOf<microarena::PrecomputedPlan>()) places every tensor and\n"
      "// scratch buffer without planning on the device, and the figures above are for that call.\n"
      "constexpr bool kTensorArenaHasPrecomputedPlan = {};\n",
      plan != nullptr ? "true" : "false");
  if (plan == nullptr) {
    out +=
        "template <typename Plan>\n"
        "constexpr Plan PrecomputedPlanOf() {\n"
        "  return Plan{};  // none: AllocateTensors refuses an empty plan for a model with tensors\n"
        "}\n";
    return out;
  }
  out += fmt::format(
      "// Planned with {}; head offsets in bytes, per tensor (kNotInHead: constants, variables,\n"
      "// tensors no op uses) and per scratch buffer in the order the kernels request them.\n"
      "constexpr uint32_t kNotInHead = 0xFFFFFFFFu;\n"
      "constexpr size_t kTensorArenaPlanTensorCount = {};\n"
      "constexpr size_t kTensorArenaPlanScratchCount = {};\n",
      plan->planner_name, plan->tensor_offsets.size(), plan->scratch_offsets.size());
  out += OffsetArray("kTensorArenaPlanTensorOffsets", plan->tensor_offsets);
  out += OffsetArray("kTensorArenaPlanScratchOffsets", plan->scratch_offsets);
  out +=
      "// A microarena::PrecomputedPlan (or any struct with the same fields) over the arrays above.\n"
      "template <typename Plan>\n"
      "constexpr Plan PrecomputedPlanOf() {\n"
      "  Plan plan{};\n"
      "  plan.tensor_offsets = kTensorArenaPlanTensorOffsets;\n"
      "  plan.tensor_count = kTensorArenaPlanTensorCount;\n"
      "  plan.scratch_offsets = kTensorArenaPlanScratchOffsets;\n"
      "  plan.scratch_count = kTensorArenaPlanScratchCount;\n"
      "  plan.head_bytes = kTensorArenaHeadSize;\n";
  // Only a tiled plan names the field, so a struct of the older fields still works.
  if (plan->tiled) out += "  plan.tiled = true;  // made for the tiling above\n";
  out +=
      "  return plan;\n"
      "}\n";
  return out;
}

}  // namespace

bool IsUsableIdentifier(const std::string& name) {
  // C++20's keywords and alternative tokens, and C's that are not C++'s
  // and not reserved by their spelling.
  static constexpr const char* kKeywords[] = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "restrict", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast",
      "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
      "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // GNU dialects' and C23's, and main (not a variable's name).
      "typeof", "typeof_unqual", "main"};
  for (const char* keyword : kKeywords) {
    if (name == keyword) return false;
  }
  if (name.empty() || name.size() > 200) return false;
  if (std::isdigit(static_cast<unsigned char>(name[0])) != 0) return false;
  if (name.compare(0, 2, "__") == 0) return false;
  if (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1])) != 0) return false;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return false;
  }
  return true;
}

bool IsValidHeaderNamespace(const std::string& name) { return IsUsableIdentifier(name); }

std::string ArenaHeader(const ArenaHeaderInput& input) {
  const ArenaFigures& f = input.figures;
  const std::string& ns = input.namespace_name;
  const PlannerChoice auto_choice = input.model_has_offline_plan ? PlannerChoice::kOffline : PlannerChoice::kGreedy;
  const bool auto_matches = f.planner == auto_choice && !input.options.preserve_all_tensors;
  const bool default_namespace = ns == "microarena_arena";
  std::string guard = "MICROARENA_ARENA_HEADER_";
  for (char c : ns) guard += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));

  std::string out;
  out += "// Tensor arena figures for one model, generated by microarena. Do not edit: regenerate with\n";
  out += fmt::format("//   {}\n", input.command_line);
  out += "//\n";
  out += fmt::format("// Model: {} ({} bytes, SHA-256 {}).\n", input.model_label, Thousands(input.model_size_bytes),
                     Sha256Hex(input.model_sha256));
  out += fmt::format(
      "// Measured with microarena's interpreter: planner {}, alignment {} B, weights {}.\n"
      "//   arena {} = persistent {} + max(head {}, temp peak {})\n"
      "// kTensorArenaSize is exact for an arena that starts at a multiple of kTensorArenaAlignment:\n"
      "// AllocateTensors succeeds with it and fails with kTensorArenaAlignment bytes less. An arena\n"
      "// that cannot be aligned needs kTensorArenaAlignment - 1 bytes more.\n",
      PlannerChoiceName(f.planner), input.options.alignment_bytes,
      input.options.copy_weights_to_arena ? "copied into the arena" : "kept in the model (flash)", Bytes(f.used_bytes),
      Bytes(f.persistent_bytes), Bytes(f.head_bytes), Bytes(f.temp_peak_bytes));
  if (!input.tiling.empty()) {
    std::string segments;
    for (const TiledSegment& segment : input.tiling) {
      segments += fmt::format("{}ops {}-{} in bands of {} row{}", segments.empty() ? "" : ", ", segment.first_op,
                              segment.last_op, segment.band_rows, segment.band_rows == 1 ? "" : "s");
    }
    out += fmt::format("//   run tiled (a microarena::TiledExecution over TilingOf below): {}\n", segments);
  }
  if (f.kernel_data.state == KernelDataState::kUsed) {
    out += fmt::format("//   kernel data: {} ops' data read from the model (microarena.KernelData, {} of flash), "
                       "{} of RAM saved\n",
                       f.kernel_data.ops_in_flash, Bytes(f.kernel_data.flash_bytes), Bytes(f.kernel_data.ram_bytes_saved));
  } else if (f.kernel_data.state != KernelDataState::kAbsent) {
    out += fmt::format("//   kernel data: the model's microarena.KernelData is {}: every op's data is in RAM (counted)\n",
                       KernelDataStateName(f.kernel_data.state));
  }
  const TargetLayout* target = FindTargetLayout(f.target);
  const size_t pointer_bytes = target != nullptr ? target->pointer_bytes : sizeof(void*);
  out += fmt::format("// Target: {} ({}, {}-bit pointers); the build fails on a target with other pointers.\n",
                     f.target, target != nullptr ? target->description : "unknown", 8 * pointer_bytes);
  if (target == &HostLayout() && sizeof(void*) == 8) {
    out +=
        "// For a 32-bit microcontroller use --target cortex-m: its tensor and op records are half\n"
        "// this size, and the figures are exact for it.\n";
  }
  out += fmt::format(
      "//\n"
      "// Everything is in namespace {0}; the check macros are MICROARENA_CHECK_*_IN(ns, ...){1}\n"
      "// C++17; includes only <stddef.h> and <stdint.h>. Use:\n"
      "//\n"
      "//   #include \"this_header.h\"\n"
      "//   alignas({0}::kTensorArenaAlignment) static uint8_t tensor_arena[{0}::kTensorArenaSize];\n"
      "//   constexpr unsigned char g_model[] = {{...}};   // the model bytes (xxd -i), declared constexpr\n"
      "//   MICROARENA_CHECK_MODEL_IN({0}, g_model);     // the build fails when the model changes\n"
      "//   constexpr microarena::InterpreterOptions kOptions{{microarena::PlannerChoice::k..., {2}}};\n"
      "//   MICROARENA_CHECK_INTERPRETER_OPTIONS_IN({0}, kOptions);  // ... or when the options do\n"
      "//   MICROARENA_CHECK_OPTIONS_IN({0}, \"{3}\", {2});  // the same check by planner name\n"
      "//\n"
      "// The model check hashes the model at compile time (about 4 s of g++ 12 per 50 KB; raise\n"
      "// -fconstexpr-ops-limit for models over a few MB). A model that is not constexpr (in its own\n"
      "// section, on a file system) can be checked at start-up: {0}::ModelMatches(data, size).\n",
      ns, default_namespace ? ", or for this\n// namespace MICROARENA_CHECK_MODEL(g_model), MICROARENA_CHECK_OPTIONS(...) and\n// MICROARENA_CHECK_INTERPRETER_OPTIONS(...)." : ".",
      input.options.alignment_bytes, PlannerChoiceName(f.planner));
  out += fmt::format("#ifndef {0}\n#define {0}\n\n#include <stddef.h>\n#include <stdint.h>\n\nnamespace {1} {{\n\n",
                     guard, ns);
  out += fmt::format(
      "// Bytes for the whole arena: persistent + max(head, temp peak).\n"
      "constexpr size_t kTensorArenaSize = {};\n"
      "// The persistent area (tail): tensor metadata, op data, variable state, scratch handles.\n"
      "constexpr size_t kTensorArenaPersistentSize = {};\n"
      "// The head: planned activations and op scratch buffers.\n"
      "constexpr size_t kTensorArenaHeadSize = {};\n"
      "// The temp peak during AllocateTensors (at the head's end; may exceed the head).\n"
      "constexpr size_t kTensorArenaTempPeakSize = {};\n"
      "// The alignment of every buffer; the arena must start at a multiple of it.\n"
      "constexpr size_t kTensorArenaAlignment = {};\n"
      "// The target the figures are for, and its pointer size.\n"
      "constexpr char kTensorArenaTarget[] = \"{}\";\n"
      "constexpr size_t kTensorArenaPointerBytes = {};\n"
      "// The planner the runtime used, as named by microarena and as the number of\n"
      "// microarena::PlannerChoice; whether PlannerChoice::kAuto (\"auto\") resolves to it.\n"
      "constexpr char kTensorArenaPlanner[] = \"{}\";\n"
      "constexpr int kTensorArenaPlannerChoice = {};\n"
      "constexpr bool kTensorArenaAutoPlannerMatches = {};\n"
      "constexpr bool kTensorArenaCopyWeights = {};\n"
      "constexpr bool kTensorArenaPreserveAllTensors = {};\n"
      "constexpr bool kTensorArenaAllowOverlap = {};\n\n",
      f.used_bytes, f.persistent_bytes, f.head_bytes, f.temp_peak_bytes, input.options.alignment_bytes, f.target,
      pointer_bytes, PlannerChoiceName(f.planner), PlannerChoiceNumber(f.planner), auto_matches ? "true" : "false",
      input.options.copy_weights_to_arena ? "true" : "false", input.options.preserve_all_tensors ? "true" : "false",
      input.options.allow_overlap ? "true" : "false");
  std::string words;
  for (size_t i = 0; i < 8; ++i) {
    const uint32_t word = (uint32_t{input.model_sha256[4 * i]} << 24) | (uint32_t{input.model_sha256[4 * i + 1]} << 16) |
                          (uint32_t{input.model_sha256[4 * i + 2]} << 8) | uint32_t{input.model_sha256[4 * i + 3]};
    words += fmt::format("{}0x{:08x}u", i == 0 ? "" : ", ", word);
  }
  out += fmt::format(
      "// The model the figures were measured for.\n"
      "constexpr size_t kModelSizeBytes = {};\n"
      "constexpr char kModelSha256[] = \"{}\";\n"
      "constexpr uint32_t kModelSha256Words[8] = {{{}}};\n",
      input.model_size_bytes, Sha256Hex(input.model_sha256), words);
  out += TilingCode(input.tiling);
  out += PrecomputedPlanCode(input.precomputed);
  out += kHeaderCode;
  out += fmt::format("\n}}  // namespace {}\n", ns);
  out += kCheckMacros;
  if (default_namespace) {
    out +=
        "\n#define MICROARENA_CHECK_MODEL(model_array) MICROARENA_CHECK_MODEL_IN(microarena_arena, model_array)\n"
        "#define MICROARENA_CHECK_OPTIONS(planner_name, alignment_bytes) \\\n"
        "  MICROARENA_CHECK_OPTIONS_IN(microarena_arena, planner_name, alignment_bytes)\n"
        "#define MICROARENA_CHECK_INTERPRETER_OPTIONS(options) \\\n"
        "  MICROARENA_CHECK_INTERPRETER_OPTIONS_IN(microarena_arena, options)\n";
  }
  out += fmt::format("\n#endif  // {}\n", guard);
  return out;
}

}  // namespace microarena::report
