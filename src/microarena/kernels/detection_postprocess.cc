// DETECTION_POSTPROCESS glue: the custom op "TFLite_Detection_PostProcess"
// (in AllOpsResolver under that name, as in TFLM's). Reads the op's
// FlexBuffers options, validates the tensors and asks for one scratch
// buffer; the math is in reference/detection_postprocess.h.
//
// Inputs: 0 box encodings [1, boxes, >= 4], 1 class predictions [1, boxes,
// num_classes or num_classes + 1], 2 anchors [boxes, 4]; all float32 (TFLM
// refuses other box and class types at eval; anchors of another type or
// shape TFLM reads out of bounds, so they are refused too).
// Outputs: 0 boxes, 1 classes, 2 scores, 3 number of detections; float32.
//
// Options (FlexBuffers map): max_detections, max_classes_per_detection,
// nms_score_threshold, nms_iou_threshold, num_classes, y_scale, x_scale,
// h_scale, w_scale are required (TFLM reads a missing one as 0, which it
// then refuses or divides by; here it is an error naming the key);
// detections_per_class defaults to 100 and use_regular_nms to false, as in
// TFLM. Checks TFLM makes at eval (iou threshold in (0, 1], positive
// max_classes_per_detection and detections_per_class, batch 1, four box
// values, classes with at most one background column) are made here at
// prepare, as are the ones it does not make but needs to stay in bounds
// (num_classes > 0, max_detections >= 0, outputs large enough for
// max_detections). Eval fails, as TFLM's does, when a decoded box has
// ymin >= ymax or xmin >= xmax; and when max_classes_per_detection > 1
// puts a detection past the outputs in TFLM's layout (where TFLM writes out
// of bounds). Output slots TFLM leaves unwritten are zero here.
//
// Memory: op data 52 B in the persistent area; one scratch buffer of
// 20 B per box (decoded box, work index), plus 4 B per box and 4 B per
// class on the fast path. TFLM keeps a 112 B op data and asks for eleven
// scratch buffers, 29 B per box plus 4 B per box and class column plus
// 12 B x max_detections x boxes plus 4 B x max(classes, max_detections)
// x boxes plus 4 B x min(boxes, max_detections) x boxes (e.g. 12096 B
// against 1208 B for 50 boxes, 2 classes and 10 detections).
#include "microarena/kernels/reference/detection_postprocess.h"

#include <cstdint>

#include "microarena/base/checked_math.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"
#include "microarena/model/flexbuffer_map.h"

namespace microarena {
namespace {

constexpr size_t kBoxEncodings = 0;
constexpr size_t kClassPredictions = 1;
constexpr size_t kAnchors = 2;
constexpr size_t kOutputBoxes = 0;
constexpr size_t kOutputClasses = 1;
constexpr size_t kOutputScores = 2;
constexpr size_t kOutputCount = 3;

constexpr int32_t kDefaultDetectionsPerClass = 100;

struct DetectionPostprocessOpData {
  reference::DetectionPostprocessParams params;
  int32_t capacity = 0;  // detections each output holds
  int32_t scratch_index = -1;
};
static_assert(sizeof(DetectionPostprocessOpData) == 52, "op data: 52 B on every target (kernel.h)");

Status OptionError(const PrepareContext& context, const Status& status) {
  return context.Error(status.code(), "custom options: %s", status.message());
}

Status RequiredInt(const PrepareContext& context, const FlexbufferMap& map, const char* key, int32_t* value) {
  bool present = false;
  Status status = map.GetInt32(key, value, &present);
  if (!status.ok()) return OptionError(context, status);
  if (!present) return context.Error(ErrorCode::kInvalidArgument, "custom options: '%s' is missing", key);
  return OkStatus();
}

Status RequiredFloat(const PrepareContext& context, const FlexbufferMap& map, const char* key, float* value) {
  bool present = false;
  Status status = map.GetFloat(key, value, &present);
  if (!status.ok()) return OptionError(context, status);
  if (!present) return context.Error(ErrorCode::kInvalidArgument, "custom options: '%s' is missing", key);
  return OkStatus();
}

Status ReadOptions(const PrepareContext& context, reference::DetectionPostprocessParams* params) {
  const Span<const uint8_t> bytes = context.op().custom_options();
  if (bytes.empty()) {
    return context.Error(ErrorCode::kInvalidArgument, "custom options missing (a FlexBuffers map is expected)");
  }
  Result<FlexbufferMap> map = FlexbufferMap::Parse(bytes);
  if (!map.ok()) return OptionError(context, map.status());
  MICROARENA_RETURN_IF_ERROR(RequiredInt(context, *map, "max_detections", &params->max_detections));
  MICROARENA_RETURN_IF_ERROR(
      RequiredInt(context, *map, "max_classes_per_detection", &params->max_classes_per_detection));
  MICROARENA_RETURN_IF_ERROR(RequiredFloat(context, *map, "nms_score_threshold", &params->score_threshold));
  MICROARENA_RETURN_IF_ERROR(RequiredFloat(context, *map, "nms_iou_threshold", &params->iou_threshold));
  MICROARENA_RETURN_IF_ERROR(RequiredInt(context, *map, "num_classes", &params->num_classes));
  MICROARENA_RETURN_IF_ERROR(RequiredFloat(context, *map, "y_scale", &params->scale.y));
  MICROARENA_RETURN_IF_ERROR(RequiredFloat(context, *map, "x_scale", &params->scale.x));
  MICROARENA_RETURN_IF_ERROR(RequiredFloat(context, *map, "h_scale", &params->scale.h));
  MICROARENA_RETURN_IF_ERROR(RequiredFloat(context, *map, "w_scale", &params->scale.w));
  bool present = false;
  params->detections_per_class = kDefaultDetectionsPerClass;
  Status status = map->GetInt32("detections_per_class", &params->detections_per_class, &present);
  if (!status.ok()) return OptionError(context, status);
  params->use_regular_nms = false;
  status = map->GetBool("use_regular_nms", &params->use_regular_nms, &present);
  if (!status.ok()) return OptionError(context, status);

  if (params->max_detections < 0) {
    return context.Error(ErrorCode::kInvalidArgument, "max_detections %d is negative", params->max_detections);
  }
  if (params->num_classes <= 0) {
    return context.Error(ErrorCode::kInvalidArgument, "num_classes %d must be positive", params->num_classes);
  }
  if (!(params->iou_threshold > 0.0f && params->iou_threshold <= 1.0f)) {
    return context.Error(ErrorCode::kInvalidArgument, "nms_iou_threshold %g must be in (0, 1]",
                         static_cast<double>(params->iou_threshold));
  }
  if (params->use_regular_nms && params->detections_per_class <= 0) {
    return context.Error(ErrorCode::kInvalidArgument, "detections_per_class %d must be positive (regular NMS)",
                         params->detections_per_class);
  }
  if (!params->use_regular_nms && params->max_classes_per_detection <= 0) {
    return context.Error(ErrorCode::kInvalidArgument, "max_classes_per_detection %d must be positive (fast NMS)",
                         params->max_classes_per_detection);
  }
  return OkStatus();
}

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 3, 4));
  reference::DetectionPostprocessParams params;
  MICROARENA_RETURN_IF_ERROR(ReadOptions(context, &params));

  const TensorView encodings = context.input(kBoxEncodings);
  const TensorView predictions = context.input(kClassPredictions);
  const TensorView anchors = context.input(kAnchors);
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "box encodings", encodings, 3));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "class predictions", predictions, 3));
  MICROARENA_RETURN_IF_ERROR(RequireRank(context, "anchors", anchors, 2));
  MICROARENA_RETURN_IF_ERROR(RequireType(context, "box encodings", encodings, TensorType::kFloat32));
  MICROARENA_RETURN_IF_ERROR(RequireType(context, "class predictions", predictions, TensorType::kFloat32));
  MICROARENA_RETURN_IF_ERROR(RequireType(context, "anchors", anchors, TensorType::kFloat32));
  const int32_t boxes = Dim(encodings, 1);
  if (Dim(encodings, 0) != 1 || Dim(encodings, 2) < 4) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "box encodings tensor %d is [%d, %d, %d]; [1, boxes, >= 4] expected (batch 1)",
                         encodings.index(), Dim(encodings, 0), boxes, Dim(encodings, 2));
  }
  const int32_t columns = Dim(predictions, 2);
  if (Dim(predictions, 0) != 1 || Dim(predictions, 1) != boxes ||
      (columns != params.num_classes && columns != params.num_classes + 1)) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "class predictions tensor %d is [%d, %d, %d]; [1, %d, %d or %d] expected (num_classes %d, "
                         "plus an optional background column)",
                         predictions.index(), Dim(predictions, 0), Dim(predictions, 1), columns, boxes,
                         params.num_classes, params.num_classes + 1, params.num_classes);
  }
  if (Dim(anchors, 0) != boxes || Dim(anchors, 1) != 4) {
    return context.Error(ErrorCode::kInvalidArgument, "anchors tensor %d is [%d, %d]; [%d, 4] expected",
                         anchors.index(), Dim(anchors, 0), Dim(anchors, 1), boxes);
  }
  size_t entries = 0;  // box * classes + class must fit an int32 (regular path)
  if (!CheckedMul(static_cast<size_t>(boxes), static_cast<size_t>(columns), &entries) || entries > INT32_MAX) {
    return context.Error(ErrorCode::kInvalidArgument, "%d boxes x %d classes is too many", boxes, columns);
  }

  // Outputs: float32; each holds `capacity` detections.
  static const char* const kOutputRoles[] = {"detection boxes", "detection classes", "detection scores",
                                             "number of detections"};
  size_t capacity = SIZE_MAX;
  for (size_t i = 0; i < 4; ++i) {
    const TensorView output = context.output(i);
    MICROARENA_RETURN_IF_ERROR(RequireType(context, kOutputRoles[i], output, TensorType::kFloat32));
    const size_t count = output.element_count();
    if (i == kOutputCount) {
      if (count < 1) {
        return context.Error(ErrorCode::kInvalidArgument, "number of detections tensor %d has no element",
                             output.index());
      }
    } else {
      const size_t held = i == kOutputBoxes ? count / 4 : count;
      if (held < capacity) capacity = held;
    }
  }
  const auto max_detections = static_cast<size_t>(params.max_detections);
  if (capacity < max_detections) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "the outputs hold %zu detections (boxes %zu / 4, classes %zu, scores %zu values); "
                         "max_detections is %d",
                         capacity, context.output(kOutputBoxes).element_count(),
                         context.output(kOutputClasses).element_count(), context.output(kOutputScores).element_count(),
                         params.max_detections);
  }
  if (capacity > INT32_MAX) capacity = INT32_MAX;

  // One scratch buffer: decoded boxes, work indices; on the fast path also
  // each box's best score and one class order.
  size_t per_box = sizeof(reference::BoxCorner) + sizeof(int32_t);
  size_t extra = 0;
  if (!params.use_regular_nms) {
    per_box += sizeof(float);
    extra = static_cast<size_t>(params.num_classes) * sizeof(int32_t);
  }
  size_t scratch_bytes = 0;
  if (!CheckedMul(static_cast<size_t>(boxes), per_box, &scratch_bytes) ||
      !CheckedAdd(scratch_bytes, extra, &scratch_bytes)) {
    return context.Error(ErrorCode::kInvalidArgument, "scratch for %d boxes overflows", boxes);
  }

  auto* data = static_cast<DetectionPostprocessOpData*>(
      context.AllocatePersistent(sizeof(DetectionPostprocessOpData), alignof(DetectionPostprocessOpData)));
  if (data == nullptr) return context.OutOfMemory();
  *data = DetectionPostprocessOpData{};
  data->params = params;
  data->capacity = static_cast<int32_t>(capacity);
  MICROARENA_RETURN_IF_ERROR(context.RequestScratch(scratch_bytes, &data->scratch_index));
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const auto& data = *static_cast<const DetectionPostprocessOpData*>(op_data);
  const EvalTensor& encodings = *context.input(kBoxEncodings);
  const EvalTensor& predictions = *context.input(kClassPredictions);
  const EvalTensor& anchors = *context.input(kAnchors);

  reference::DetectionShape shape;
  shape.boxes = encodings.dim(1);
  shape.box_stride = encodings.dim(2);
  shape.score_stride = predictions.dim(2);
  shape.label_offset = predictions.dim(2) - data.params.num_classes;
  shape.capacity = data.capacity;

  // Scratch layout: boxes x BoxCorner | boxes x int32 | [boxes x float | classes x int32].
  auto* scratch = static_cast<uint8_t*>(context.scratch(data.scratch_index));
  const size_t box_count = static_cast<size_t>(shape.boxes);
  auto* boxes = reinterpret_cast<reference::BoxCorner*>(scratch);
  auto* keep = reinterpret_cast<int32_t*>(scratch + box_count * sizeof(reference::BoxCorner));
  float* max_scores = nullptr;
  int32_t* class_order = nullptr;
  if (!data.params.use_regular_nms) {
    max_scores = reinterpret_cast<float*>(keep + box_count);
    class_order = reinterpret_cast<int32_t*>(max_scores + box_count);
  }
  const reference::DetectionOutputs outputs = {
      context.output(kOutputBoxes)->As<reference::BoxCorner>(), context.output(kOutputClasses)->As<float>(),
      context.output(kOutputScores)->As<float>(), context.output(kOutputCount)->As<float>()};
  const reference::DetectionOutcome outcome =
      reference::DetectionPostprocess(data.params, shape, encodings.As<const float>(), predictions.As<const float>(),
                                      anchors.As<const float>(), boxes, keep, max_scores, class_order, outputs);
  switch (outcome) {
    case reference::DetectionOutcome::kOk: return OkStatus();
    case reference::DetectionOutcome::kInvalidBox:
      return Status::Error(ErrorCode::kInvalidArgument,
                           "a decoded box has ymin >= ymax or xmin >= xmax (check the box encodings, anchors and "
                           "scales)");
    case reference::DetectionOutcome::kOutputTooSmall:
      return Status::Error(ErrorCode::kInvalidArgument,
                           "max_classes_per_detection %d: TFLM's layout puts the detections of the selected boxes "
                           "beyond the %d the outputs hold",
                           data.params.max_classes_per_detection, data.capacity);
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kDetectionPostprocessKernel = {BuiltinOp::kCustom, Prepare, Eval};

}  // namespace microarena
