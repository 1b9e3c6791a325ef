// Malformed input never crashes.
//
// Feeds more than 10,000 corrupted variants of real models (the shared models and
// the demo model) through LoadModel. Every variant must either fail with an error
// or load as a model whose every accessor is safe: for each one that loads, the
// test touches every tensor (name, shape, byte_size, first and last data byte,
// quantization), every op (name, code, inputs, outputs, intermediates) and every
// metadata entry. Run under ASan+UBSan, an out-of-bounds view or an overflowing
// size shows up here as a crash report.
//
// The corruptions, each from a fixed seed so that a failure reproduces:
//  - truncation: the first N bytes, for many N, copied into an allocation of
//    exactly N bytes (so that reading past them is caught)
//  - byte flips: 1 to 4 random bytes set to random values, mostly in the
//    flatbuffer's structure (offsets, vtables, lengths, indices, shapes), some in
//    the payload (constant data, quantization arrays, names)
//  - inflated lengths: the uint32 length prefix of vectors and strings found by
//    walking the verified model (tensor shapes, names, quantization arrays, op
//    inputs, buffer data, the tables' own vectors) overwritten with larger values
//  - semantic errors written with ModelBuilder: out-of-range tensor, buffer,
//    opcode and subgraph indices, negative and huge dimensions whose byte size
//    overflows, constant buffers shorter than their tensor, unknown operator
//    codes, out-of-range metadata buffers and op intermediates,
//    external buffer data (Buffer.offset/size) past the end of the file
//  - external data in bounds: a buffer moved out of the flatbuffer to point at
//    other bytes of the file (these may load; their views must stay inside)
// Sanity checks that can fail: every semantic error and every length inflated
// past the end of the file is rejected, and almost all truncations are.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "microarena/base/split_mix64.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_builder.h"
#include "microarena/model/model_view.h"
#include "tests/support/test_support.h"

namespace microarena {
namespace {

// Variants wanted in all; byte flips fill up what the other kinds leave.
constexpr size_t kTargetVariants = 11000;
constexpr size_t kMinVariants = 10000;
constexpr size_t kMinFlipsPerModel = 300;
constexpr size_t kTruncationsPerModel = 300;
constexpr size_t kMaxInflatedVectorsPerModel = 120;
constexpr size_t kSemanticVariantsPerModel = 60;
constexpr size_t kExternalDataVariantsPerModel = 10;

// SplitMix64: small, deterministic, good enough to pick positions.
class Random {
 public:
  explicit Random(uint64_t seed) : bits_(seed) {}
  uint64_t Next() { return bits_.Next(); }
  size_t Below(size_t bound) { return bound == 0 ? 0 : static_cast<size_t>(Next() % bound); }
  uint8_t Byte() { return static_cast<uint8_t>(Next() & 0xFF); }

 private:
  SplitMix64 bits_;
};

struct BaseModel {
  std::string name;
  std::vector<uint8_t> bytes;
};

// Tallies per kind of corruption.
struct Tally {
  size_t variants = 0;
  size_t loaded = 0;
  size_t failed = 0;
};

// A model's location of one length-prefixed vector (or string).
struct VectorSite {
  size_t offset_bytes;   // where the uint32 length prefix is
  uint32_t length;       // its original value
  size_t element_bytes;  // bytes per element (1 for strings and byte vectors)
};

class CorruptionRun {
 public:
  // Loads `bytes` (which must stay alive during the call); on success touches every
  // accessor. Returns true when the model loaded.
  bool Feed(const uint8_t* data, size_t size_bytes, Tally* tally) {
    ++tally->variants;
    Result<ModelView> model = LoadModel(Span<const uint8_t>(data, size_bytes));
    if (!model.ok()) {
      ++tally->failed;
      if (model.status().message()[0] == '\0') NoteViolation("an error without a message");
      return false;
    }
    ++tally->loaded;
    TouchEverything(*model);
    return true;
  }

  void NoteViolation(const std::string& what) {
    if (violations_ == 0) first_violation_ = what;
    ++violations_;
  }

  size_t violations() const { return violations_; }
  const std::string& first_violation() const { return first_violation_; }
  uint64_t checksum() const { return checksum_; }

 private:
  void TouchEverything(const ModelView& model) {
    checksum_ += model.schema_version() + std::strlen(model.description());
    checksum_ += model.buffer_count() + model.operator_code_count();
    for (size_t m = 0; m < model.metadata_count(); ++m) {
      const char* name = model.metadata_name(m);
      checksum_ += std::strlen(name) + (model.has_metadata(name) ? 1 : 0);
      TouchBytes(model.metadata(name));
    }
    for (size_t s = 0; s < model.subgraph_count(); ++s) {
      SubgraphView subgraph = model.subgraph(s);
      checksum_ += std::strlen(subgraph.name());
      const size_t tensor_count = subgraph.tensor_count();
      for (size_t t = 0; t < tensor_count; ++t) TouchTensor(subgraph.tensor(t));
      TouchIndices(subgraph.inputs(), tensor_count, false, "subgraph input");
      TouchIndices(subgraph.outputs(), tensor_count, false, "subgraph output");
      for (int32_t input : subgraph.inputs()) checksum_ += subgraph.IsInput(input) ? 1 : 0;
      for (size_t o = 0; o < subgraph.operator_count(); ++o) {
        OperatorView op = subgraph.op(o);
        checksum_ += static_cast<uint64_t>(op.code()) + static_cast<uint64_t>(op.version());
        checksum_ += std::strlen(op.name()) + (op.is_custom() ? 1 : 0);
        TouchIndices(op.inputs(), tensor_count, true, "op input");
        TouchIndices(op.outputs(), tensor_count, false, "op output");
        TouchIndices(op.intermediates(), tensor_count, false, "op intermediate");
        checksum_ += op.raw()->builtin_options() != nullptr ? 1 : 0;
      }
    }
  }

  void TouchTensor(const TensorView& tensor) {
    checksum_ += std::strlen(tensor.name()) + static_cast<uint64_t>(tensor.type());
    for (int32_t dim : tensor.shape()) {
      if (dim < 0) NoteViolation("a loaded tensor has a negative dimension");
      checksum_ += static_cast<uint32_t>(dim);
    }
    const size_t byte_size = tensor.byte_size();
    if (byte_size > kMaxTensorBytes) NoteViolation("a loaded tensor is larger than kMaxTensorBytes");
    checksum_ += tensor.element_count() + byte_size + tensor.buffer_index() + (tensor.is_variable() ? 1 : 0);
    Span<const uint8_t> data = tensor.data();
    if (!data.empty() && data.size() < byte_size) NoteViolation("a loaded constant tensor has a short buffer");
    checksum_ += tensor.is_constant() ? 1 : 0;
    TouchBytes(data);
    QuantizationView quantization = tensor.quantization();
    checksum_ += quantization.is_quantized() ? 1 : 0;
    checksum_ += quantization.stored_bytes() + static_cast<uint32_t>(quantization.quantized_dimension());
    for (size_t c = 0; c < quantization.channel_count(); ++c) {
      float scale = quantization.scale(c);
      uint32_t scale_bits = 0;
      std::memcpy(&scale_bits, &scale, sizeof(scale_bits));
      checksum_ += scale_bits + static_cast<uint64_t>(quantization.zero_point(c));
    }
  }

  // The first and the last byte: if both lie inside the model, the span does.
  void TouchBytes(Span<const uint8_t> bytes) {
    if (bytes.empty()) return;
    checksum_ += bytes[0] + bytes[bytes.size() - 1] + bytes.size();
  }

  void TouchIndices(Span<const int32_t> indices, size_t tensor_count, bool allow_omitted, const char* what) {
    for (int32_t index : indices) {
      const bool omitted = allow_omitted && index == -1;
      if (!omitted && (index < 0 || static_cast<size_t>(index) >= tensor_count)) {
        NoteViolation(std::string("a loaded model has an out-of-range ") + what);
      }
      checksum_ += static_cast<uint32_t>(index);
    }
  }

  uint64_t checksum_ = 0;
  size_t violations_ = 0;
  std::string first_violation_;
};

std::vector<BaseModel> BaseModels() {
  std::vector<BaseModel> models;
  const std::string shared = testing::SharedDir();
  if (shared.empty()) {
    std::printf("[ note     ] shared data not found (set MICROARENA_SHARED_DIR): corrupting the demo "
                "model only\n");
  }
  for (const std::string& name : testing::SharedModelNames()) {
    models.push_back({name, testing::ReadFileBytes(shared + "/models/" + name + ".tflite")});
  }
  models.push_back({"demo", BuildDemoModel()});
  return models;
}

// The length prefixes of the model's vectors and strings, found through the
// generated API of the verified model.
std::vector<VectorSite> FindVectorSites(const std::vector<uint8_t>& bytes) {
  std::vector<VectorSite> sites;
  const uint8_t* base = bytes.data();
  auto add = [&](const void* vector, uint32_t length, size_t element_bytes) {
    if (vector == nullptr) return;
    sites.push_back({static_cast<size_t>(static_cast<const uint8_t*>(vector) - base), length, element_bytes});
  };
  const tflite::Model* model = tflite::GetModel(base);
  add(model->operator_codes(), model->operator_codes() ? model->operator_codes()->size() : 0, 4);
  add(model->subgraphs(), model->subgraphs()->size(), 4);
  add(model->buffers(), model->buffers()->size(), 4);
  add(model->metadata(), model->metadata() ? model->metadata()->size() : 0, 4);
  for (const tflite::Buffer* buffer : *model->buffers()) {
    if (buffer->data() != nullptr) add(buffer->data(), buffer->data()->size(), 1);
  }
  for (const tflite::SubGraph* subgraph : *model->subgraphs()) {
    if (subgraph->tensors() != nullptr) {
      add(subgraph->tensors(), subgraph->tensors()->size(), 4);
      for (const tflite::Tensor* tensor : *subgraph->tensors()) {
        if (tensor->shape() != nullptr) add(tensor->shape(), tensor->shape()->size(), 4);
        if (tensor->name() != nullptr) add(tensor->name(), tensor->name()->size(), 1);
        const tflite::QuantizationParameters* q = tensor->quantization();
        if (q != nullptr && q->scale() != nullptr) add(q->scale(), q->scale()->size(), 4);
        if (q != nullptr && q->zero_point() != nullptr) add(q->zero_point(), q->zero_point()->size(), 8);
      }
    }
    if (subgraph->inputs() != nullptr) add(subgraph->inputs(), subgraph->inputs()->size(), 4);
    if (subgraph->outputs() != nullptr) add(subgraph->outputs(), subgraph->outputs()->size(), 4);
    if (subgraph->operators() != nullptr) {
      add(subgraph->operators(), subgraph->operators()->size(), 4);
      for (const tflite::Operator* op : *subgraph->operators()) {
        if (op->inputs() != nullptr) add(op->inputs(), op->inputs()->size(), 4);
        if (op->outputs() != nullptr) add(op->outputs(), op->outputs()->size(), 4);
      }
    }
  }
  return sites;
}

// Marks the payload bytes: constant data, quantization arrays and names, whose
// values LoadModel does not interpret. Byte flips aim mostly at the rest, the
// structure (offsets, vtables, lengths, indices, shapes, scalar fields).
std::vector<bool> PayloadMask(const std::vector<uint8_t>& bytes) {
  std::vector<bool> is_payload(bytes.size(), false);
  auto mark = [&](const void* begin, size_t size_bytes) {
    const size_t first = static_cast<size_t>(static_cast<const uint8_t*>(begin) - bytes.data());
    for (size_t i = 0; i < size_bytes; ++i) is_payload[first + i] = true;
  };
  const tflite::Model* model = tflite::GetModel(bytes.data());
  for (const tflite::Buffer* buffer : *model->buffers()) {
    if (buffer->data() != nullptr) mark(buffer->data()->data(), buffer->data()->size());
  }
  for (const tflite::SubGraph* subgraph : *model->subgraphs()) {
    if (subgraph->tensors() == nullptr) continue;
    for (const tflite::Tensor* tensor : *subgraph->tensors()) {
      if (tensor->name() != nullptr) mark(tensor->name()->data(), tensor->name()->size());
      const tflite::QuantizationParameters* q = tensor->quantization();
      if (q == nullptr) continue;
      if (q->scale() != nullptr) mark(q->scale()->data(), q->scale()->size() * sizeof(float));
      if (q->zero_point() != nullptr) mark(q->zero_point()->data(), q->zero_point()->size() * sizeof(int64_t));
      if (q->min() != nullptr) mark(q->min()->data(), q->min()->size() * sizeof(float));
      if (q->max() != nullptr) mark(q->max()->data(), q->max()->size() * sizeof(float));
    }
  }
  return is_payload;
}

void RunTruncations(const BaseModel& base, CorruptionRun* run, Tally* tally) {
  const size_t size = base.bytes.size();
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 64 && n < size; ++n) lengths.push_back(n);               // the header
  for (size_t n = 1; n <= 32 && n < size; ++n) lengths.push_back(size - n);       // the tail
  const size_t spread = kTruncationsPerModel - lengths.size();
  for (size_t i = 0; i < spread; ++i) lengths.push_back(64 + (size - 64) * i / spread);  // everything between
  for (size_t length : lengths) {
    // An allocation of exactly `length` bytes: reading past it is an ASan error.
    std::unique_ptr<uint8_t[]> copy(new uint8_t[length == 0 ? 1 : length]);
    if (length != 0) std::memcpy(copy.get(), base.bytes.data(), length);
    run->Feed(copy.get(), length, tally);
  }
}

void RunByteFlips(const BaseModel& base, size_t count, uint64_t seed, CorruptionRun* run, Tally* tally) {
  std::vector<uint8_t> work = base.bytes;
  const std::vector<bool> is_payload = PayloadMask(base.bytes);
  std::vector<size_t> structure_positions;
  std::vector<size_t> payload_positions;
  for (size_t i = 0; i < work.size(); ++i) (is_payload[i] ? payload_positions : structure_positions).push_back(i);
  Random random(seed);
  for (size_t v = 0; v < count; ++v) {
    const size_t flips = 1 + random.Below(4);
    size_t positions[4] = {};
    for (size_t f = 0; f < flips; ++f) {
      // One flip in eight lands in the payload; the rest hit the structure.
      const bool in_payload = !payload_positions.empty() && random.Below(8) == 0;
      const std::vector<size_t>& pool = in_payload ? payload_positions : structure_positions;
      positions[f] = pool[random.Below(pool.size())];
      work[positions[f]] = random.Byte();
    }
    run->Feed(work.data(), work.size(), tally);
    for (size_t f = 0; f < flips; ++f) work[positions[f]] = base.bytes[positions[f]];
  }
}

void RunInflatedLengths(const BaseModel& base, uint64_t seed, CorruptionRun* run, Tally* tally, Tally* past_end) {
  std::vector<VectorSite> sites = FindVectorSites(base.bytes);
  Random random(seed);
  // Keep an even spread of at most kMaxInflatedVectorsPerModel sites.
  std::vector<VectorSite> chosen;
  const size_t step = sites.size() / kMaxInflatedVectorsPerModel + 1;
  for (size_t i = 0; i < sites.size(); i += step) chosen.push_back(sites[i]);
  std::vector<uint8_t> work = base.bytes;
  for (const VectorSite& site : chosen) {
    const size_t end_of_vector_room = (work.size() - site.offset_bytes - 4) / site.element_bytes;
    const uint32_t inflated[] = {
        site.length + 1,
        site.length + 1 + static_cast<uint32_t>(random.Below(64)),
        static_cast<uint32_t>(end_of_vector_room + 1),  // just past the end of the file
        0x7FFFFFFFu,
        0xFFFFFFFFu,
    };
    for (uint32_t length : inflated) {
      if (length <= site.length) continue;  // wrapped: not an inflation
      std::memcpy(work.data() + site.offset_bytes, &length, sizeof(length));
      const bool loaded = run->Feed(work.data(), work.size(), tally);
      uint64_t needed_bytes = static_cast<uint64_t>(length) * site.element_bytes;
      if (needed_bytes > work.size() - site.offset_bytes - 4) {
        ++past_end->variants;
        (loaded ? past_end->loaded : past_end->failed)++;
      }
    }
    std::memcpy(work.data() + site.offset_bytes, &site.length, sizeof(site.length));
  }
}

// One semantic error, written with ModelBuilder into a copy of `original`.
// Returns false when the model has nothing to break this way.
bool BreakModel(tflite::ModelT* model, size_t kind, Random& random) {
  const uint32_t extra = 1 + static_cast<uint32_t>(random.Below(1000));
  tflite::SubGraphT& subgraph = *model->subgraphs[random.Below(model->subgraphs.size())];
  const int32_t tensor_count = static_cast<int32_t>(subgraph.tensors.size());
  auto pick_tensor = [&]() -> tflite::TensorT* {
    return subgraph.tensors.empty() ? nullptr : subgraph.tensors[random.Below(subgraph.tensors.size())].get();
  };
  auto pick_op = [&]() -> tflite::OperatorT* {
    return subgraph.operators.empty() ? nullptr : subgraph.operators[random.Below(subgraph.operators.size())].get();
  };
  switch (kind) {
    case 0: {  // an op input past the last tensor
      tflite::OperatorT* op = pick_op();
      if (op == nullptr || op->inputs.empty()) return false;
      op->inputs[random.Below(op->inputs.size())] = tensor_count + static_cast<int32_t>(extra) - 1;
      return true;
    }
    case 1: {  // a negative op output
      tflite::OperatorT* op = pick_op();
      if (op == nullptr || op->outputs.empty()) return false;
      op->outputs[random.Below(op->outputs.size())] = -static_cast<int32_t>(extra);
      return true;
    }
    case 2: {  // an opcode index past the last operator code
      tflite::OperatorT* op = pick_op();
      if (op == nullptr) return false;
      op->opcode_index = static_cast<uint32_t>(model->operator_codes.size()) + extra - 1;
      return true;
    }
    case 3: {  // a tensor's buffer index past the last buffer
      tflite::TensorT* tensor = pick_tensor();
      if (tensor == nullptr) return false;
      tensor->buffer = static_cast<uint32_t>(model->buffers.size()) + extra - 1;
      return true;
    }
    case 4: {  // a negative dimension
      tflite::TensorT* tensor = pick_tensor();
      if (tensor == nullptr) return false;
      if (tensor->shape.empty()) tensor->shape.push_back(1);
      tensor->shape[random.Below(tensor->shape.size())] = -static_cast<int32_t>(extra);
      return true;
    }
    case 5: {  // dimensions whose element count or byte size overflows
      tflite::TensorT* tensor = pick_tensor();
      if (tensor == nullptr) return false;
      const size_t rank = 2 + random.Below(5);
      tensor->shape.assign(rank, std::numeric_limits<int32_t>::max() - static_cast<int32_t>(random.Below(1000)));
      return true;
    }
    case 6: {  // a subgraph input past the last tensor
      subgraph.inputs.push_back(tensor_count + static_cast<int32_t>(extra) - 1);
      return true;
    }
    case 7: {  // a subgraph output past the last tensor
      subgraph.outputs.push_back(tensor_count + static_cast<int32_t>(extra) - 1);
      return true;
    }
    case 8: {  // a constant buffer shorter than its tensor (but not empty)
      for (size_t tries = 0; tries < 8; ++tries) {
        tflite::TensorT* tensor = pick_tensor();
        if (tensor == nullptr || tensor->buffer >= model->buffers.size()) continue;
        std::vector<uint8_t>& data = model->buffers[tensor->buffer]->data;
        uint64_t needed_bits = TensorTypeBits(static_cast<TensorType>(tensor->type));
        for (int32_t dim : tensor->shape) needed_bits *= static_cast<uint64_t>(dim < 0 ? 0 : dim);
        const uint64_t needed_bytes = (needed_bits + 7) / 8;
        if (data.empty() || needed_bytes < 2 || needed_bytes > data.size()) continue;
        data.resize(1 + random.Below(static_cast<size_t>(needed_bytes) - 1));  // 1 .. needed - 1
        return true;
      }
      return false;
    }
    case 9: {  // an operator code that does not exist
      if (model->operator_codes.empty()) return false;
      tflite::OperatorCodeT& code = *model->operator_codes[random.Below(model->operator_codes.size())];
      code.deprecated_builtin_code = 127;
      code.builtin_code = kMaxKnownBuiltinOp + static_cast<int32_t>(extra);
      return true;
    }
    case 10: {  // a metadata entry whose buffer is past the last one
      ModelBuilder builder(std::move(*model));
      builder.AddMetadataEntry("OfflineMemoryAllocation", static_cast<uint32_t>(builder.buffer_count()) + extra);
      *model = std::move(builder.mutable_model());
      return true;
    }
    case 11: {  // constant data said to lie after the flatbuffer, past the end of the file
      tflite::BufferT& buffer = *model->buffers[random.Below(model->buffers.size())];
      buffer.data.clear();
      buffer.offset = (uint64_t{1} << 40) + extra;
      buffer.size = 16;
      return true;
    }
    default: {  // an op intermediate past the last tensor
      tflite::OperatorT* op = pick_op();
      if (op == nullptr) return false;
      op->intermediates.push_back(tensor_count + static_cast<int32_t>(extra));
      return true;
    }
  }
}

void RunSemanticErrors(const BaseModel& base, uint64_t seed, CorruptionRun* run, Tally* tally) {
  const std::unique_ptr<tflite::ModelT> original = tflite::UnPackModel(base.bytes.data());
  Random random(seed);
  constexpr size_t kKinds = 13;
  for (size_t v = 0; v < kSemanticVariantsPerModel; ++v) {
    ModelBuilder builder(*original);
    if (!BreakModel(&builder.mutable_model(), v % kKinds, random)) continue;
    const std::vector<uint8_t> bytes = builder.Build();
    run->Feed(bytes.data(), bytes.size(), tally);
  }
}

// Moves one buffer's data out of the flatbuffer: Buffer.offset/size then point at
// arbitrary bytes of the file (in bounds, so the model may load), which exercises
// the views of external data.
void RunExternalData(const BaseModel& base, uint64_t seed, CorruptionRun* run, Tally* tally) {
  const std::unique_ptr<tflite::ModelT> original = tflite::UnPackModel(base.bytes.data());
  Random random(seed);
  for (size_t v = 0; v < kExternalDataVariantsPerModel; ++v) {
    ModelBuilder builder(*original);
    tflite::ModelT& model = builder.mutable_model();
    tflite::BufferT& buffer = *model.buffers[random.Below(model.buffers.size())];
    if (buffer.data.empty()) continue;
    buffer.size = buffer.data.size();
    buffer.data.clear();
    buffer.offset = 2;  // a placeholder: the final offset does not change the file's size
    const size_t file_bytes = builder.Build().size();
    if (file_bytes < buffer.size + 2) continue;
    buffer.offset = 2 + random.Below(static_cast<size_t>(file_bytes - buffer.size - 2) + 1);
    const std::vector<uint8_t> bytes = builder.Build();
    run->Feed(bytes.data(), bytes.size(), tally);
  }
}

TEST(ModelCorruptionTest, MalformedInputNeverCrashes) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<BaseModel> models = BaseModels();
  CorruptionRun run;
  Tally truncations, flips, inflations, past_end, semantic, external;

  for (size_t m = 0; m < models.size(); ++m) {
    const BaseModel& base = models[m];
    SCOPED_TRACE(base.name);
    ASSERT_GT(base.bytes.size(), 64u);
    Result<ModelView> pristine = LoadModel(Span<const uint8_t>(base.bytes.data(), base.bytes.size()));
    ASSERT_TRUE(pristine.ok()) << "the uncorrupted model must load: " << pristine.status().message();
    RunTruncations(base, &run, &truncations);
    RunInflatedLengths(base, 1000 + m, &run, &inflations, &past_end);
    RunSemanticErrors(base, 2000 + m, &run, &semantic);
    RunExternalData(base, 4000 + m, &run, &external);
  }
  const size_t so_far = truncations.variants + inflations.variants + semantic.variants + external.variants;
  const size_t flips_per_model =
      std::max(kMinFlipsPerModel, (kTargetVariants - std::min(kTargetVariants, so_far)) / models.size() + 1);
  for (size_t m = 0; m < models.size(); ++m) RunByteFlips(models[m], flips_per_model, 3000 + m, &run, &flips);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Tally* kinds[] = {&truncations, &flips, &inflations, &semantic, &external};
  const char* names[] = {"truncations", "byte flips", "inflated lengths", "semantic errors", "external data"};
  Tally total;
  for (size_t k = 0; k < 5; ++k) {
    std::printf("[ variants ] %-17s %6zu: %6zu loaded, %6zu failed\n", names[k], kinds[k]->variants,
                kinds[k]->loaded, kinds[k]->failed);
    total.variants += kinds[k]->variants;
    total.loaded += kinds[k]->loaded;
    total.failed += kinds[k]->failed;
  }
  std::printf("[ variants ] %-17s %6zu: %6zu loaded, %6zu failed (%zu models, %.1f s, checksum %llu)\n", "total",
              total.variants, total.loaded, total.failed, models.size(), seconds,
              static_cast<unsigned long long>(run.checksum()));

  EXPECT_EQ(run.violations(), 0u) << "first: " << run.first_violation();
  EXPECT_GE(total.variants, kMinVariants);
  // Sanity: the corruptions are real. Semantic errors and lengths past the end of
  // the file must all fail; truncations nearly all (a cut may only drop padding).
  EXPECT_EQ(semantic.loaded, 0u);
  EXPECT_GE(semantic.variants, models.size() * kSemanticVariantsPerModel * 9 / 10);
  EXPECT_EQ(past_end.loaded, 0u);
  EXPECT_GT(past_end.variants, models.size() * 2);
  EXPECT_GE(truncations.failed * 100, truncations.variants * 99);
  EXPECT_GT(external.loaded, 0u) << "external data in bounds is valid and must load sometimes";
  EXPECT_GT(total.failed, total.loaded) << "corrupted models mostly fail";
}

}  // namespace
}  // namespace microarena
