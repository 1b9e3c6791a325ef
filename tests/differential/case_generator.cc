#include "tests/differential/case_generator.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "microarena/model/model_builder.h"

namespace microarena::differential {
namespace {

using Bytes = std::vector<uint8_t>;
using Shape = std::vector<int32_t>;

// splitmix64: fully specified, so a seed means the same case everywhere.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
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
  uint64_t state_;
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
  CaseBuilder(GeneratedCase* out, Random* random, bool is_float) : out_(out), random_(random), float_(is_float) {}

  QuantizationSpec Quant(float scale, int64_t zero_point) const {
    return float_ ? QuantizationSpec{} : QuantizationSpec::PerTensor(scale, zero_point);
  }
  TensorType Type() const { return float_ ? TensorType::kFloat32 : TensorType::kInt8; }

  int32_t Input(const Shape& shape, float scale, int64_t zero_point) {
    const int32_t t = builder_.AddTensor({"in" + std::to_string(graph_inputs_.size()), Type(), shape, 0,
                                          Quant(scale, zero_point)});
    graph_inputs_.push_back(t);
    op_inputs_.push_back(t);
    out_->inputs.push_back(float_ ? random_->RandomFloats(Elements(shape), 4.0f)
                                  : random_->RandomBytes(Elements(shape)));
    return t;
  }
  void Constant(const std::string& name, TensorType type, const Shape& shape, Bytes data,
                QuantizationSpec quantization) {
    op_inputs_.push_back(builder_.AddConstantTensor({name, type, shape, 0, std::move(quantization)}, std::move(data)));
  }
  void Finish(BuiltinOp op, tflite::BuiltinOptionsUnion options, const Shape& shape, float scale, int64_t zero_point) {
    const int32_t out = builder_.AddTensor({"out", Type(), shape, 0, Quant(scale, zero_point)});
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
  bool float_;
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

struct Kind {
  const char* name;
  bool is_float;
  void (*make)(GeneratedCase*, Random&, bool);
};

const Kind kKinds[] = {
    {"ADD", false, [](GeneratedCase* c, Random& r, bool f) { Binary(c, r, BuiltinOp::kAdd, f); }},
    {"SUB", false, [](GeneratedCase* c, Random& r, bool f) { Binary(c, r, BuiltinOp::kSub, f); }},
    {"MUL", false, [](GeneratedCase* c, Random& r, bool f) { Binary(c, r, BuiltinOp::kMul, f); }},
    {"RELU", false, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kRelu, f); }},
    {"RELU6", false, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kRelu6, f); }},
    {"LEAKY_RELU", false, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kLeakyRelu, f); }},
    {"HARD_SWISH", false, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kHardSwish, f); }},
    {"LOGISTIC", false, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kLogistic, f); }},
    {"TANH", false, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kTanh, f); }},
    {"SOFTMAX", false, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kSoftmax, f); }},
    {"CONV_2D", false, [](GeneratedCase* c, Random& r, bool f) { Conv(c, r, false, f); }},
    {"DEPTHWISE_CONV_2D", false, [](GeneratedCase* c, Random& r, bool f) { Conv(c, r, true, f); }},
    {"FULLY_CONNECTED", false, [](GeneratedCase* c, Random& r, bool f) { FullyConnected(c, r, f); }},
    {"AVERAGE_POOL_2D", false, [](GeneratedCase* c, Random& r, bool f) { Pool(c, r, BuiltinOp::kAveragePool2d, f); }},
    {"MAX_POOL_2D", false, [](GeneratedCase* c, Random& r, bool f) { Pool(c, r, BuiltinOp::kMaxPool2d, f); }},
    {"MEAN", false, [](GeneratedCase* c, Random& r, bool f) { Mean(c, r, f); }},
    {"ADD", true, [](GeneratedCase* c, Random& r, bool f) { Binary(c, r, BuiltinOp::kAdd, f); }},
    {"MUL", true, [](GeneratedCase* c, Random& r, bool f) { Binary(c, r, BuiltinOp::kMul, f); }},
    {"CONV_2D", true, [](GeneratedCase* c, Random& r, bool f) { Conv(c, r, false, f); }},
    {"DEPTHWISE_CONV_2D", true, [](GeneratedCase* c, Random& r, bool f) { Conv(c, r, true, f); }},
    {"FULLY_CONNECTED", true, [](GeneratedCase* c, Random& r, bool f) { FullyConnected(c, r, f); }},
    {"AVERAGE_POOL_2D", true, [](GeneratedCase* c, Random& r, bool f) { Pool(c, r, BuiltinOp::kAveragePool2d, f); }},
    {"MAX_POOL_2D", true, [](GeneratedCase* c, Random& r, bool f) { Pool(c, r, BuiltinOp::kMaxPool2d, f); }},
    {"SOFTMAX", true, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kSoftmax, f); }},
    {"LOGISTIC", true, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kLogistic, f); }},
    {"TANH", true, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kTanh, f); }},
    {"RELU", true, [](GeneratedCase* c, Random& r, bool f) { Unary(c, r, BuiltinOp::kRelu, f); }},
    {"MEAN", true, [](GeneratedCase* c, Random& r, bool f) { Mean(c, r, f); }},
};

}  // namespace

uint64_t CaseKindCount() { return sizeof(kKinds) / sizeof(kKinds[0]); }

GeneratedCase GenerateCase(uint64_t seed) {
  const Kind& kind = kKinds[seed % CaseKindCount()];
  GeneratedCase c;
  c.seed = seed;
  c.op = std::string(kind.name) + (kind.is_float ? " float32" : " int8");
  Random random(seed);
  kind.make(&c, random, kind.is_float);
  return c;
}

}  // namespace microarena::differential
