#include "tests/differential/case_generator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "microarena/base/split_mix64.h"
#include "microarena/model/model_builder.h"

namespace microarena::differential {
namespace {

using Bytes = std::vector<uint8_t>;
using Shape = std::vector<int32_t>;

// splitmix64: fully specified, so a seed means the same case everywhere.
class Random {
 public:
  explicit Random(uint64_t seed) : bits_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}
  uint64_t Next() { return bits_.Next(); }
  int32_t Range(int32_t lo, int32_t hi) {  // inclusive
    return lo + static_cast<int32_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Range(1, 100) <= percent; }
  double Unit() { return static_cast<double>(Next() >> 11) / 9007199254740992.0; }
  // 2^e with e uniform in [lo, hi]: the scales real models have span decades.
  float LogScale(double lo, double hi) { return static_cast<float>(std::exp2(lo + (hi - lo) * Unit())); }
  int64_t ZeroPoint() { return Range(-128, 127); }
  Bytes RandomBytes(size_t n) {
    Bytes bytes(n);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(Next() >> 56);
    return bytes;
  }
  // Floats in [-range, range), as the golden input generator makes them.
  Bytes RandomFloats(size_t n, float range) {
    Bytes bytes(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) {
      const float value = static_cast<float>((Unit() * 2.0 - 1.0) * range);
      std::memcpy(bytes.data() + i * sizeof(float), &value, sizeof(float));
    }
    return bytes;
  }
  tflite::ActivationFunctionType Activation() {
    switch (Range(0, 2)) {
      case 1: return tflite::ActivationFunctionType::RELU;
      case 2: return tflite::ActivationFunctionType::RELU6;
      default: return tflite::ActivationFunctionType::NONE;
    }
  }

 private:
  SplitMix64 bits_;
};

size_t Elements(const Shape& shape) {
  size_t n = 1;
  for (int32_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

std::string ShapeText(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

const char* ActivationText(tflite::ActivationFunctionType a) {
  switch (a) {
    case tflite::ActivationFunctionType::RELU: return "relu";
    case tflite::ActivationFunctionType::RELU6: return "relu6";
    default: return "none";
  }
}

// One op over graph inputs and constants; the case's inputs are filled as the
// inputs are added.
class CaseBuilder {
 public:
  CaseBuilder(GeneratedCase* out, Random* random, bool is_float)
      : CaseBuilder(out, random, is_float ? TensorType::kFloat32 : TensorType::kInt8) {}
  CaseBuilder(GeneratedCase* out, Random* random, TensorType type) : out_(out), random_(random), type_(type) {}

  // Only int8 tensors carry quantization.
  QuantizationSpec Quant(float scale, int64_t zero_point) const {
    return type_ == TensorType::kInt8 ? QuantizationSpec::PerTensor(scale, zero_point) : QuantizationSpec{};
  }
  TensorType Type() const { return type_; }

  int32_t Input(const Shape& shape, float scale, int64_t zero_point) {
    return Input(shape, scale, zero_point,
                 type_ == TensorType::kFloat32 ? random_->RandomFloats(Elements(shape), 4.0f)
                                               : random_->RandomBytes(Elements(shape) * TensorTypeBits(type_) / 8));
  }
  // An input with the given bytes (e.g. values drawn to make ties).
  int32_t Input(const Shape& shape, float scale, int64_t zero_point, Bytes data) {
    const int32_t t = builder_.AddTensor({"in" + std::to_string(graph_inputs_.size()), Type(), shape, 0,
                                          Quant(scale, zero_point)});
    graph_inputs_.push_back(t);
    op_inputs_.push_back(t);
    out_->inputs.push_back(std::move(data));
    return t;
  }
  void Constant(const std::string& name, TensorType type, const Shape& shape, Bytes data,
                QuantizationSpec quantization) {
    op_inputs_.push_back(builder_.AddConstantTensor({name, type, shape, 0, std::move(quantization)}, std::move(data)));
  }
  void Finish(BuiltinOp op, tflite::BuiltinOptionsUnion options, const Shape& shape, float scale, int64_t zero_point) {
    FinishAs(op, std::move(options), {"out", Type(), shape, 0, Quant(scale, zero_point)});
  }
  void FinishAs(BuiltinOp op, tflite::BuiltinOptionsUnion options, const TensorSpec& output) {
    const int32_t out = builder_.AddTensor(output);
    OperatorSpec spec;
    spec.op = op;
    spec.inputs = op_inputs_;
    spec.outputs = {out};
    spec.options = std::move(options);
    builder_.AddOperator(std::move(spec));
    builder_.SetInputs(graph_inputs_);
    builder_.SetOutputs({out});
    out_->model = builder_.Build();
  }

 private:
  GeneratedCase* out_;
  Random* random_;
  TensorType type_;
  ModelBuilder builder_;
  std::vector<int32_t> graph_inputs_;
  std::vector<int32_t> op_inputs_;
};

Shape RandomShape4(Random& r, int32_t max_side, int32_t max_channels) {
  return {1, r.Range(1, max_side), r.Range(1, max_side), r.Range(1, max_channels)};
}

void Binary(GeneratedCase* c, Random& r, BuiltinOp op, bool is_float) {
  CaseBuilder b(c, &r, is_float);
  const Shape shape = RandomShape4(r, 8, 8);
  Shape other = shape;
  // A third of the cases broadcast one side along some axes.
  if (r.Chance(33)) {
    for (size_t d = 1; d < 4; ++d) {
      if (r.Chance(50)) other[d] = 1;
    }
  }
  const bool swap = r.Chance(50);
  const float s1 = r.LogScale(-8, 1), s2 = r.LogScale(-8, 1);
  const int64_t z1 = r.ZeroPoint(), z2 = r.ZeroPoint();
  b.Input(swap ? other : shape, s1, z1);
  b.Input(swap ? shape : other, s2, z2);
  const auto activation = r.Activation();
  const float out_scale = op == BuiltinOp::kMul ? s1 * s2 * r.LogScale(-2, 6) : r.LogScale(-8, 2);
  const int64_t out_zp = r.ZeroPoint();
  tflite::BuiltinOptionsUnion options;
  if (op == BuiltinOp::kAdd) {
    tflite::AddOptionsT o;
    o.fused_activation_function = activation;
    options = MakeBuiltinOptions(o);
  } else if (op == BuiltinOp::kSub) {
    tflite::SubOptionsT o;
    o.fused_activation_function = activation;
    options = MakeBuiltinOptions(o);
  } else {
    tflite::MulOptionsT o;
    o.fused_activation_function = activation;
    options = MakeBuiltinOptions(o);
  }
  b.Finish(op, std::move(options), shape, out_scale, out_zp);
  c->description = ShapeText(swap ? other : shape) + " op " + ShapeText(swap ? shape : other) + " act " +
                   ActivationText(activation);
}

void Unary(GeneratedCase* c, Random& r, BuiltinOp op, bool is_float) {
  CaseBuilder b(c, &r, is_float);
  const Shape shape = RandomShape4(r, 8, 8);
  b.Input(shape, r.LogScale(-8, 1), r.ZeroPoint());
  float out_scale = r.LogScale(-8, 1);
  int64_t out_zp = r.ZeroPoint();
  tflite::BuiltinOptionsUnion options;
  if (op == BuiltinOp::kLogistic || op == BuiltinOp::kSoftmax) {  // TFLite's fixed int8 output range
    out_scale = 1.0f / 256.0f;
    out_zp = -128;
  } else if (op == BuiltinOp::kTanh) {
    out_scale = 1.0f / 128.0f;
    out_zp = 0;
  }
  if (op == BuiltinOp::kLeakyRelu) {
    tflite::LeakyReluOptionsT o;
    o.alpha = static_cast<float>(r.Range(1, 90)) / 100.0f;
    options = MakeBuiltinOptions(o);
    c->description = "alpha " + std::to_string(o.alpha) + " ";
  } else if (op == BuiltinOp::kSoftmax) {
    tflite::SoftmaxOptionsT o;
    const float betas[] = {1.0f, 0.5f, 2.0f, 0.125f};
    o.beta = betas[r.Range(0, 3)];
    options = MakeBuiltinOptions(o);
    c->description = "beta " + std::to_string(o.beta) + " ";
  }
  b.Finish(op, std::move(options), shape, out_scale, out_zp);
  c->description += ShapeText(shape);
}

// Output size along one axis, as TFLite computes it.
int32_t OutputSize(tflite::Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
  const int32_t effective = (filter - 1) * dilation + 1;
  return padding == tflite::Padding::SAME ? (in + stride - 1) / stride : (in - effective + stride) / stride;
}

// Filter (int8, per-channel along `channel_axis`) and int32 bias for a
// convolution with `out_channels` outputs.
void ConvWeights(CaseBuilder& b, Random& r, const Shape& filter_shape, int32_t out_channels, int32_t channel_axis,
                 float input_scale, bool is_float) {
  const size_t filter_elements = Elements(filter_shape);
  if (is_float) {
    b.Constant("filter", TensorType::kFloat32, filter_shape, r.RandomFloats(filter_elements, 1.0f), {});
    b.Constant("bias", TensorType::kFloat32, {out_channels}, r.RandomFloats(static_cast<size_t>(out_channels), 2.0f),
               {});
    return;
  }
  std::vector<float> scales, bias_scales;
  std::vector<int64_t> zeros(static_cast<size_t>(out_channels), 0);
  for (int32_t o = 0; o < out_channels; ++o) {
    scales.push_back(r.LogScale(-10, -2));
    bias_scales.push_back(scales.back() * input_scale);
  }
  Bytes filter = r.RandomBytes(filter_elements);
  for (uint8_t& v : filter) {
    if (v == 0x80) v = 0x81;  // symmetric int8 weights: [-127, 127]
  }
  b.Constant("filter", TensorType::kInt8, filter_shape, std::move(filter),
             QuantizationSpec::PerChannel(scales, zeros, channel_axis));
  std::vector<int32_t> bias;
  for (int32_t o = 0; o < out_channels; ++o) bias.push_back(r.Range(-40000, 40000));
  b.Constant("bias", TensorType::kInt32, {out_channels}, BytesOf(bias), QuantizationSpec::PerChannel(bias_scales, zeros, 0));
}

void Conv(GeneratedCase* c, Random& r, bool depthwise, bool is_float) {
  CaseBuilder b(c, &r, is_float);
  const int32_t kh = r.Range(1, 3), kw = r.Range(1, 3);
  const int32_t stride_h = r.Range(1, 2), stride_w = r.Range(1, 2);
  const bool dilate = stride_h == 1 && stride_w == 1 && r.Chance(25);
  const int32_t dilation_h = dilate ? 2 : 1, dilation_w = dilate ? r.Range(1, 2) : 1;
  const auto padding = r.Chance(50) ? tflite::Padding::SAME : tflite::Padding::VALID;
  const int32_t h = r.Range((kh - 1) * dilation_h + 1, 9), w = r.Range((kw - 1) * dilation_w + 1, 9);
  const int32_t in_channels = r.Range(1, 6);
  const int32_t multiplier = depthwise ? r.Range(1, 2) : 1;
  const int32_t out_channels = depthwise ? in_channels * multiplier : r.Range(1, 6);
  const float input_scale = r.LogScale(-8, 0);
  const Shape input{1, h, w, in_channels};
  b.Input(input, input_scale, r.ZeroPoint());
  const Shape filter = depthwise ? Shape{1, kh, kw, out_channels} : Shape{out_channels, kh, kw, in_channels};
  ConvWeights(b, r, filter, out_channels, depthwise ? 3 : 0, input_scale, is_float);
  const Shape output{1, OutputSize(padding, h, kh, stride_h, dilation_h), OutputSize(padding, w, kw, stride_w, dilation_w),
                     out_channels};
  const auto activation = r.Activation();
  tflite::BuiltinOptionsUnion options;
  if (depthwise) {
    tflite::DepthwiseConv2DOptionsT o;
    o.padding = padding;
    o.stride_h = stride_h;
    o.stride_w = stride_w;
    o.dilation_h_factor = dilation_h;
    o.dilation_w_factor = dilation_w;
    o.depth_multiplier = multiplier;
    o.fused_activation_function = activation;
    options = MakeBuiltinOptions(o);
  } else {
    tflite::Conv2DOptionsT o;
    o.padding = padding;
    o.stride_h = stride_h;
    o.stride_w = stride_w;
    o.dilation_h_factor = dilation_h;
    o.dilation_w_factor = dilation_w;
    o.fused_activation_function = activation;
    options = MakeBuiltinOptions(o);
  }
  b.Finish(depthwise ? BuiltinOp::kDepthwiseConv2d : BuiltinOp::kConv2d, std::move(options), output,
           r.LogScale(-6, 0), r.ZeroPoint());
  c->description = ShapeText(input) + " filter " + ShapeText(filter) + " stride " + std::to_string(stride_h) + "x" +
                   std::to_string(stride_w) + " dilation " + std::to_string(dilation_h) + "x" +
                   std::to_string(dilation_w) + (padding == tflite::Padding::SAME ? " same" : " valid") + " act " +
                   ActivationText(activation);
}

void FullyConnected(GeneratedCase* c, Random& r, bool is_float) {
  CaseBuilder b(c, &r, is_float);
  const int32_t batch = r.Range(1, 3), depth = r.Range(1, 40), units = r.Range(1, 12);
  const float input_scale = r.LogScale(-8, 0);
  b.Input({batch, depth}, input_scale, r.ZeroPoint());
  const Shape filter{units, depth};
  if (is_float) {
    b.Constant("filter", TensorType::kFloat32, filter, r.RandomFloats(Elements(filter), 1.0f), {});
    b.Constant("bias", TensorType::kFloat32, {units}, r.RandomFloats(static_cast<size_t>(units), 2.0f), {});
  } else {
    const float filter_scale = r.LogScale(-10, -2);
    Bytes weights = r.RandomBytes(Elements(filter));
    for (uint8_t& v : weights) {
      if (v == 0x80) v = 0x81;
    }
    b.Constant("filter", TensorType::kInt8, filter, std::move(weights), QuantizationSpec::PerTensor(filter_scale, 0));
    std::vector<int32_t> bias;
    for (int32_t u = 0; u < units; ++u) bias.push_back(r.Range(-40000, 40000));
    b.Constant("bias", TensorType::kInt32, {units}, BytesOf(bias),
               QuantizationSpec::PerTensor(filter_scale * input_scale, 0));
  }
  tflite::FullyConnectedOptionsT o;
  o.fused_activation_function = r.Activation();
  const std::string act = ActivationText(o.fused_activation_function);
  b.Finish(BuiltinOp::kFullyConnected, MakeBuiltinOptions(o), {batch, units}, r.LogScale(-6, 0), r.ZeroPoint());
  c->description = "[" + std::to_string(batch) + "," + std::to_string(depth) + "] x " + ShapeText(filter) + " act " + act;
}

void Pool(GeneratedCase* c, Random& r, BuiltinOp op, bool is_float) {
  CaseBuilder b(c, &r, is_float);
  const int32_t fh = r.Range(1, 3), fw = r.Range(1, 3);
  const int32_t stride_h = r.Range(1, 2), stride_w = r.Range(1, 2);
  const auto padding = r.Chance(50) ? tflite::Padding::SAME : tflite::Padding::VALID;
  const int32_t h = r.Range(fh, 9), w = r.Range(fw, 9), channels = r.Range(1, 8);
  // TFLite's int8 pools keep the input's scale and zero point.
  const float scale = r.LogScale(-8, 1);
  const int64_t zero_point = r.ZeroPoint();
  const Shape input{1, h, w, channels};
  b.Input(input, scale, zero_point);
  tflite::Pool2DOptionsT o;
  o.padding = padding;
  o.stride_h = stride_h;
  o.stride_w = stride_w;
  o.filter_height = fh;
  o.filter_width = fw;
  o.fused_activation_function = r.Activation();
  const std::string act = ActivationText(o.fused_activation_function);
  const Shape output{1, OutputSize(padding, h, fh, stride_h, 1), OutputSize(padding, w, fw, stride_w, 1), channels};
  b.Finish(op, MakeBuiltinOptions(o), output, scale, zero_point);
  c->description = ShapeText(input) + " window " + std::to_string(fh) + "x" + std::to_string(fw) + " stride " +
                   std::to_string(stride_h) + "x" + std::to_string(stride_w) +
                   (padding == tflite::Padding::SAME ? " same" : " valid") + " act " + act;
}

void Mean(GeneratedCase* c, Random& r, bool is_float) {
  CaseBuilder b(c, &r, is_float);
  const Shape input = RandomShape4(r, 8, 16);
  // Same scale and zero point half the time (a global average pool), else any.
  const float scale = r.LogScale(-8, 1);
  const int64_t zero_point = r.ZeroPoint();
  const bool same = r.Chance(50);
  b.Input(input, scale, zero_point);
  b.Constant("axis", TensorType::kInt32, {2}, BytesOf(std::vector<int32_t>{1, 2}), {});
  tflite::ReducerOptionsT o;
  o.keep_dims = r.Chance(50);
  const Shape output = o.keep_dims ? Shape{1, 1, 1, input[3]} : Shape{1, input[3]};
  b.Finish(BuiltinOp::kMean, MakeBuiltinOptions(o), output, same ? scale : r.LogScale(-8, 1),
           same ? zero_point : r.ZeroPoint());
  c->description = ShapeText(input) + " axes [1,2] keep_dims " + (o.keep_dims ? "1" : "0") +
                   (same ? " same quantization" : "");
}


// --- comparisons ---

const char* TypeText(TensorType type) {
  switch (type) {
    case TensorType::kFloat32: return "float32";
    case TensorType::kInt32: return "int32";
    default: return "int8";
  }
}

// The shape `a` and `b` broadcast to (aligned at the last axis).
Shape BroadcastOf(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int32_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int32_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = std::max(da, db);
  }
  return out;
}

// Values of one comparison input. A `width` of 0 or more draws from the
// 2 * width + 1 values around 0 (around the zero point for int8), so that both
// inputs often hold equal real values; a negative one draws from everywhere.
Bytes ComparisonValues(Random& r, TensorType type, size_t n, int32_t width, int64_t zero_point) {
  if (type == TensorType::kInt8) {
    if (width < 0) return r.RandomBytes(n);
    Bytes bytes(n);
    for (uint8_t& b : bytes) {
      const int64_t q = std::min<int64_t>(127, std::max<int64_t>(-128, zero_point + r.Range(-width, width)));
      b = static_cast<uint8_t>(static_cast<int8_t>(q));
    }
    return bytes;
  }
  if (type == TensorType::kFloat32) {
    if (width < 0) return r.RandomFloats(n, 4.0f);
    std::vector<float> values(n);
    for (float& v : values) {
      v = static_cast<float>(r.Range(-width, width)) * 0.5f;
      if (v == 0.0f && r.Chance(50)) v = -0.0f;  // equal to +0 for every comparison
    }
    return BytesOf(values);
  }
  std::vector<int32_t> values(n);
  for (int32_t& v : values) {
    v = width >= 0 ? r.Range(-width, width) : static_cast<int32_t>(static_cast<uint32_t>(r.Next() >> 32));
  }
  return BytesOf(values);
}

void Comparison(GeneratedCase* c, Random& r, TensorType type) {
  static const std::pair<BuiltinOp, const char*> kOps[] = {
      {BuiltinOp::kEqual, "EQUAL"},          {BuiltinOp::kNotEqual, "NOT_EQUAL"},
      {BuiltinOp::kLess, "LESS"},            {BuiltinOp::kLessEqual, "LESS_EQUAL"},
      {BuiltinOp::kGreater, "GREATER"},      {BuiltinOp::kGreaterEqual, "GREATER_EQUAL"}};
  const auto& op = kOps[r.Range(0, 5)];
  c->op = std::string(op.second) + " " + TypeText(type);
  // Shapes: equal, per-channel against a map, [1] against anything, some axes
  // of a 4-D shape set to 1, or a lower-rank trailing part.
  Shape big;
  const int32_t rank = r.Range(1, 4);
  for (int32_t d = 0; d < rank; ++d) big.push_back(r.Range(1, 6));
  Shape small = big;
  switch (r.Range(0, 4)) {
    case 1: big = RandomShape4(r, 6, 6); small = {1, 1, 1, big[3]}; break;
    case 2: small = {1}; break;
    case 3:
      big = RandomShape4(r, 6, 6);
      small = big;
      for (int32_t& d : small) {
        if (r.Chance(50)) d = 1;
      }
      break;
    case 4:
      if (big.size() > 1) small.erase(small.begin(), small.begin() + r.Range(1, static_cast<int32_t>(big.size()) - 1));
      break;
    default: break;
  }
  const bool swap = r.Chance(50);
  const Shape& first = swap ? small : big;
  const Shape& second = swap ? big : small;
  // int8: the same quantization, scales a power of two apart, or unrelated;
  // all below 1, where TFLM's rescaling works.
  const int quant_mode = r.Range(0, 2);
  const float s1 = r.LogScale(-8, -2.5);
  const float s2 = quant_mode == 0 ? s1 : quant_mode == 1 ? s1 * std::exp2f(static_cast<float>(r.Range(-2, 2)))
                                                          : r.LogScale(-8, -0.1);
  const int64_t z1 = r.ZeroPoint();
  const int64_t z2 = quant_mode == 0 ? z1 : r.ZeroPoint();
  const int32_t width = r.Chance(60) ? r.Range(0, 3) : -1;
  CaseBuilder b(c, &r, type);
  b.Input(first, s1, z1, ComparisonValues(r, type, Elements(first), width, z1));
  b.Input(second, s2, z2, ComparisonValues(r, type, Elements(second), width, z2));
  const Shape out = BroadcastOf(first, second);
  b.FinishAs(op.first, {}, {"out", TensorType::kBool, out, 0, {}});
  c->description = ShapeText(first) + " vs " + ShapeText(second) +
                   (width >= 0 ? " values within " + std::to_string(width) : std::string());
  if (type == TensorType::kInt8) {
    c->description += " scales " + std::to_string(s1) + "," + std::to_string(s2) + " zero points " +
                      std::to_string(z1) + "," + std::to_string(z2);
  }
}

// --- control flow ---

struct Quantization {
  float scale = 1.0f;
  int64_t zero_point = 0;
  bool operator==(const Quantization& o) const { return scale == o.scale && zero_point == o.zero_point; }
};

// The fixed int8 output quantization of LOGISTIC/SOFTMAX and of TANH.
const Quantization kSigmoidQuant{1.0f / 256.0f, -128};
const Quantization kTanhQuant{1.0f / 128.0f, 0};

enum class Family { kAddConst, kSubConst, kMulConst, kRelu, kRelu6, kLeakyRelu, kHardSwish, kLogistic, kTanh,
                    kSoftmax, kMaxPool };

const char* FamilyText(Family f) {
  switch (f) {
    case Family::kAddConst: return "ADD";
    case Family::kSubConst: return "SUB";
    case Family::kMulConst: return "MUL";
    case Family::kRelu: return "RELU";
    case Family::kRelu6: return "RELU6";
    case Family::kLeakyRelu: return "LEAKY_RELU";
    case Family::kHardSwish: return "HARD_SWISH";
    case Family::kLogistic: return "LOGISTIC";
    case Family::kTanh: return "TANH";
    case Family::kSoftmax: return "SOFTMAX";
    case Family::kMaxPool: return "MAX_POOL_2D";
  }
  return "?";
}

// A family of the one-op kinds above that can map `in` to `out` keeping the
// shape: the float forms are those the float kinds cover; LOGISTIC, TANH and
// SOFTMAX need their fixed int8 output, MAX_POOL_2D the input's quantization.
Family PickFamily(Random& r, bool is_float, const Quantization& in, const Quantization& out) {
  if (is_float) {
    const Family f[] = {Family::kAddConst, Family::kMulConst, Family::kRelu, Family::kLogistic, Family::kTanh,
                        Family::kSoftmax};
    return f[r.Range(0, 5)];
  }
  std::vector<Family> options = {Family::kAddConst, Family::kSubConst, Family::kMulConst, Family::kRelu,
                                 Family::kRelu6,    Family::kLeakyRelu, Family::kHardSwish};
  if (out == kSigmoidQuant) options.insert(options.end(), {Family::kLogistic, Family::kSoftmax});
  if (out == kTanhQuant) options.push_back(Family::kTanh);
  if (out == in) options.push_back(Family::kMaxPool);
  return options[static_cast<size_t>(r.Range(0, static_cast<int32_t>(options.size()) - 1))];
}

TensorSpec ActivationTensor(const std::string& name, bool is_float, const Shape& shape, const Quantization& q) {
  return is_float ? TensorSpec{name, TensorType::kFloat32, shape, 0, {}}
                  : TensorSpec{name, TensorType::kInt8, shape, 0, QuantizationSpec::PerTensor(q.scale, q.zero_point)};
}

// Adds `family` mapping tensor `in` to a new tensor `name` in `graph`;
// returns the new tensor and appends what it drew to `text`.
int32_t AddShapePreservingOp(ModelBuilder& builder, Random& r, size_t graph, Family family, int32_t in,
                             const Shape& shape, bool is_float, const Quantization& out_q, const std::string& name,
                             std::string* text) {
  OperatorSpec spec;
  spec.inputs = {in};
  *text += FamilyText(family);
  switch (family) {
    case Family::kAddConst:
    case Family::kSubConst:
    case Family::kMulConst: {
      // The constant is the whole shape, one value per channel or one value.
      const int pick = r.Range(0, 2);
      const Shape constant_shape = pick == 0 ? shape : pick == 1 ? Shape{1, 1, 1, shape[3]} : Shape{1};
      const size_t n = Elements(constant_shape);
      const float scale = r.LogScale(-8, 1);
      const int64_t zero_point = r.ZeroPoint();
      spec.inputs.push_back(builder.AddConstantTensor(
          ActivationTensor(name + "_const", is_float, constant_shape, {scale, zero_point}),
          is_float ? r.RandomFloats(n, 2.0f) : r.RandomBytes(n), graph));
      const auto activation = r.Activation();
      if (family == Family::kAddConst) {
        tflite::AddOptionsT o;
        o.fused_activation_function = activation;
        spec.options = MakeBuiltinOptions(o);
        spec.op = BuiltinOp::kAdd;
      } else if (family == Family::kSubConst) {
        tflite::SubOptionsT o;
        o.fused_activation_function = activation;
        spec.options = MakeBuiltinOptions(o);
        spec.op = BuiltinOp::kSub;
      } else {
        tflite::MulOptionsT o;
        o.fused_activation_function = activation;
        spec.options = MakeBuiltinOptions(o);
        spec.op = BuiltinOp::kMul;
      }
      *text += " const " + ShapeText(constant_shape) + " act " + ActivationText(activation);
      break;
    }
    case Family::kRelu: spec.op = BuiltinOp::kRelu; break;
    case Family::kRelu6: spec.op = BuiltinOp::kRelu6; break;
    case Family::kHardSwish: spec.op = BuiltinOp::kHardSwish; break;
    case Family::kLogistic: spec.op = BuiltinOp::kLogistic; break;
    case Family::kTanh: spec.op = BuiltinOp::kTanh; break;
    case Family::kLeakyRelu: {
      tflite::LeakyReluOptionsT o;
      o.alpha = static_cast<float>(r.Range(1, 90)) / 100.0f;
      spec.options = MakeBuiltinOptions(o);
      spec.op = BuiltinOp::kLeakyRelu;
      break;
    }
    case Family::kSoftmax: {
      tflite::SoftmaxOptionsT o;
      o.beta = r.Chance(50) ? 1.0f : 0.5f;
      spec.options = MakeBuiltinOptions(o);
      spec.op = BuiltinOp::kSoftmax;
      break;
    }
    case Family::kMaxPool: {  // SAME, stride 1: the shape stays
      tflite::Pool2DOptionsT o;
      o.padding = tflite::Padding::SAME;
      o.stride_h = 1;
      o.stride_w = 1;
      o.filter_height = r.Range(1, 3);
      o.filter_width = r.Range(1, 3);
      spec.options = MakeBuiltinOptions(o);
      spec.op = BuiltinOp::kMaxPool2d;
      *text += " " + std::to_string(o.filter_height) + "x" + std::to_string(o.filter_width);
      break;
    }
  }
  const int32_t out = builder.AddTensor(ActivationTensor(name, is_float, shape, out_q), graph);
  spec.outputs = {out};
  builder.AddOperator(std::move(spec), graph);
  return out;
}

Quantization RandomQuant(Random& r) { return {r.LogScale(-8, 1), r.ZeroPoint()}; }

// main: y = IF(cond, x), then z = op(y) in a third of the cases; the then and
// else subgraphs hold one op each, both with y's type, shape and quantization.
void If(GeneratedCase* c, Random& r, bool is_float) {
  ModelBuilder builder;
  const size_t then_graph = builder.AddSubgraph("then");
  const size_t else_graph = builder.AddSubgraph("else");
  const Shape shape = RandomShape4(r, 6, 6);
  const Quantization in_q = RandomQuant(r);
  Quantization out_q = RandomQuant(r);
  switch (r.Range(0, 4)) {  // outputs that admit the fixed-range ops and MAX_POOL_2D
    case 0: out_q = kSigmoidQuant; break;
    case 1: out_q = kTanhQuant; break;
    case 2: out_q = in_q; break;
    default: break;
  }
  const int32_t cond = builder.AddTensor({"cond", TensorType::kBool, {1}, 0, {}});
  const int32_t x = builder.AddTensor(ActivationTensor("x", is_float, shape, in_q));
  const int32_t y = builder.AddTensor(ActivationTensor("y", is_float, shape, out_q));
  OperatorSpec spec;
  spec.op = BuiltinOp::kIf;
  tflite::IfOptionsT options;
  options.then_subgraph_index = static_cast<int32_t>(then_graph);
  options.else_subgraph_index = static_cast<int32_t>(else_graph);
  spec.options = MakeBuiltinOptions(options);
  spec.inputs = {cond, x};
  spec.outputs = {y};
  builder.AddOperator(std::move(spec));
  std::string text = ShapeText(shape);
  for (const size_t graph : {then_graph, else_graph}) {
    text += graph == then_graph ? " then " : " else ";
    const int32_t a = builder.AddTensor(ActivationTensor("a", is_float, shape, in_q), graph);
    const int32_t b = AddShapePreservingOp(builder, r, graph, PickFamily(r, is_float, in_q, out_q), a, shape,
                                           is_float, out_q, "b", &text);
    builder.SetInputs({a}, graph);
    builder.SetOutputs({b}, graph);
  }
  int32_t output = y;
  if (r.Chance(33)) {
    text += " after ";
    const Quantization z_q = RandomQuant(r);
    output = AddShapePreservingOp(builder, r, 0, PickFamily(r, is_float, out_q, z_q), y, shape, is_float, z_q, "z",
                                  &text);
  }
  builder.SetInputs({cond, x});
  builder.SetOutputs({output});
  const bool condition = r.Chance(50);
  c->inputs = {Bytes{static_cast<uint8_t>(condition ? 1 : 0)},
               is_float ? r.RandomFloats(Elements(shape), 4.0f) : r.RandomBytes(Elements(shape))};
  c->model = builder.Build();
  c->description = text + (condition ? " cond true" : " cond false");
}

// main: (n, y) = WHILE(i, x); cond: LESS(i, limit); body: (i + 1, op(x)),
// op keeping x's quantization since its output is the next iteration's input.
void While(GeneratedCase* c, Random& r, bool is_float) {
  ModelBuilder builder;
  const size_t cond_graph = builder.AddSubgraph("cond");
  const size_t body_graph = builder.AddSubgraph("body");
  const Shape shape = RandomShape4(r, 6, 6);
  const Quantization q = r.Chance(20) ? kSigmoidQuant : r.Chance(10) ? kTanhQuant : RandomQuant(r);
  const TensorSpec counter_spec{"i", TensorType::kFloat32, {1}, 0, {}};
  const int32_t i = builder.AddTensor(counter_spec);
  const int32_t x = builder.AddTensor(ActivationTensor("x", is_float, shape, q));
  const int32_t n = builder.AddTensor(counter_spec);
  const int32_t y = builder.AddTensor(ActivationTensor("y", is_float, shape, q));
  OperatorSpec spec;
  spec.op = BuiltinOp::kWhile;
  tflite::WhileOptionsT options;
  options.cond_subgraph_index = static_cast<int32_t>(cond_graph);
  options.body_subgraph_index = static_cast<int32_t>(body_graph);
  spec.options = MakeBuiltinOptions(options);
  spec.inputs = {i, x};
  spec.outputs = {n, y};
  builder.AddOperator(std::move(spec));
  builder.SetInputs({i, x});
  builder.SetOutputs({n, y});

  const int32_t limit = r.Range(0, 4);
  const int32_t ci = builder.AddTensor(counter_spec, cond_graph);
  const int32_t cx = builder.AddTensor(ActivationTensor("cx", is_float, shape, q), cond_graph);
  const int32_t bound = builder.AddConstantTensor(counter_spec, BytesOf(std::vector<float>{static_cast<float>(limit)}),
                                                  cond_graph);
  const int32_t flag = builder.AddTensor({"flag", TensorType::kBool, {1}, 0, {}}, cond_graph);
  OperatorSpec less;
  less.op = BuiltinOp::kLess;
  less.inputs = {ci, bound};
  less.outputs = {flag};
  builder.AddOperator(std::move(less), cond_graph);
  builder.SetInputs({ci, cx}, cond_graph);
  builder.SetOutputs({flag}, cond_graph);

  const int32_t bi = builder.AddTensor(counter_spec, body_graph);
  const int32_t bx = builder.AddTensor(ActivationTensor("bx", is_float, shape, q), body_graph);
  const int32_t one = builder.AddConstantTensor(counter_spec, BytesOf(std::vector<float>{1.0f}), body_graph);
  const int32_t bi2 = builder.AddTensor(counter_spec, body_graph);
  OperatorSpec add;
  add.op = BuiltinOp::kAdd;
  add.inputs = {bi, one};
  add.outputs = {bi2};
  add.options = MakeBuiltinOptions(tflite::AddOptionsT{});
  builder.AddOperator(std::move(add), body_graph);
  std::string text = ShapeText(shape) + " limit " + std::to_string(limit) + " body ";
  const int32_t bx2 =
      AddShapePreservingOp(builder, r, body_graph, PickFamily(r, is_float, q, q), bx, shape, is_float, q, "bx2", &text);
  builder.SetInputs({bi, bx}, body_graph);
  builder.SetOutputs({bi2, bx2}, body_graph);

  // Start below, at or above the limit (no iteration), sometimes off the grid.
  const float start = static_cast<float>(r.Range(-2, 4)) + (r.Chance(25) ? 0.5f : 0.0f);
  c->inputs = {BytesOf(std::vector<float>{start}),
               is_float ? r.RandomFloats(Elements(shape), 4.0f) : r.RandomBytes(Elements(shape))};
  c->model = builder.Build();
  c->description = text + " start " + std::to_string(start);
}

struct Kind {
  const char* name;
  TensorType type;
  void (*make)(GeneratedCase*, Random&, TensorType);
};

bool IsFloat(TensorType t) { return t == TensorType::kFloat32; }

const Kind kKinds[] = {
    {"ADD", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Binary(c, r, BuiltinOp::kAdd, IsFloat(t)); }},
    {"SUB", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Binary(c, r, BuiltinOp::kSub, IsFloat(t)); }},
    {"MUL", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Binary(c, r, BuiltinOp::kMul, IsFloat(t)); }},
    {"RELU", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kRelu, IsFloat(t)); }},
    {"RELU6", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kRelu6, IsFloat(t)); }},
    {"LEAKY_RELU", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kLeakyRelu, IsFloat(t)); }},
    {"HARD_SWISH", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kHardSwish, IsFloat(t)); }},
    {"LOGISTIC", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kLogistic, IsFloat(t)); }},
    {"TANH", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kTanh, IsFloat(t)); }},
    {"SOFTMAX", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kSoftmax, IsFloat(t)); }},
    {"CONV_2D", TensorType::kInt8, [](GeneratedCase* c, Random& r, TensorType t) { Conv(c, r, false, IsFloat(t)); }},
    {"DEPTHWISE_CONV_2D", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Conv(c, r, true, IsFloat(t)); }},
    {"FULLY_CONNECTED", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { FullyConnected(c, r, IsFloat(t)); }},
    {"AVERAGE_POOL_2D", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Pool(c, r, BuiltinOp::kAveragePool2d, IsFloat(t)); }},
    {"MAX_POOL_2D", TensorType::kInt8,
     [](GeneratedCase* c, Random& r, TensorType t) { Pool(c, r, BuiltinOp::kMaxPool2d, IsFloat(t)); }},
    {"MEAN", TensorType::kInt8, [](GeneratedCase* c, Random& r, TensorType t) { Mean(c, r, IsFloat(t)); }},
    {"ADD", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { Binary(c, r, BuiltinOp::kAdd, IsFloat(t)); }},
    {"MUL", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { Binary(c, r, BuiltinOp::kMul, IsFloat(t)); }},
    {"CONV_2D", TensorType::kFloat32, [](GeneratedCase* c, Random& r, TensorType t) { Conv(c, r, false, IsFloat(t)); }},
    {"DEPTHWISE_CONV_2D", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { Conv(c, r, true, IsFloat(t)); }},
    {"FULLY_CONNECTED", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { FullyConnected(c, r, IsFloat(t)); }},
    {"AVERAGE_POOL_2D", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { Pool(c, r, BuiltinOp::kAveragePool2d, IsFloat(t)); }},
    {"MAX_POOL_2D", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { Pool(c, r, BuiltinOp::kMaxPool2d, IsFloat(t)); }},
    {"SOFTMAX", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kSoftmax, IsFloat(t)); }},
    {"LOGISTIC", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kLogistic, IsFloat(t)); }},
    {"TANH", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kTanh, IsFloat(t)); }},
    {"RELU", TensorType::kFloat32,
     [](GeneratedCase* c, Random& r, TensorType t) { Unary(c, r, BuiltinOp::kRelu, IsFloat(t)); }},
    {"MEAN", TensorType::kFloat32, [](GeneratedCase* c, Random& r, TensorType t) { Mean(c, r, IsFloat(t)); }},
    // The comparison kinds name their op themselves; int8 twice, for its rescaling.
    {"COMPARISON", TensorType::kInt8, [](GeneratedCase* c, Random& r, TensorType t) { Comparison(c, r, t); }},
    {"COMPARISON", TensorType::kInt8, [](GeneratedCase* c, Random& r, TensorType t) { Comparison(c, r, t); }},
    {"COMPARISON", TensorType::kFloat32, [](GeneratedCase* c, Random& r, TensorType t) { Comparison(c, r, t); }},
    {"COMPARISON", TensorType::kInt32, [](GeneratedCase* c, Random& r, TensorType t) { Comparison(c, r, t); }},
    {"IF", TensorType::kInt8, [](GeneratedCase* c, Random& r, TensorType t) { If(c, r, IsFloat(t)); }},
    {"IF", TensorType::kFloat32, [](GeneratedCase* c, Random& r, TensorType t) { If(c, r, IsFloat(t)); }},
    {"WHILE", TensorType::kInt8, [](GeneratedCase* c, Random& r, TensorType t) { While(c, r, IsFloat(t)); }},
    {"WHILE", TensorType::kFloat32, [](GeneratedCase* c, Random& r, TensorType t) { While(c, r, IsFloat(t)); }},
};

}  // namespace

uint64_t CaseKindCount() { return sizeof(kKinds) / sizeof(kKinds[0]); }

GeneratedCase GenerateCase(uint64_t seed) {
  const Kind& kind = kKinds[seed % CaseKindCount()];
  GeneratedCase c;
  c.seed = seed;
  c.op = std::string(kind.name) + " " + TypeText(kind.type);
  Random random(seed);
  kind.make(&c, random, kind.type);
  return c;
}

}  // namespace microarena::differential
