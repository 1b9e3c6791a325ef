// EMBEDDING_LOOKUP: rows of a table (rank >= 2) picked by a rank-1 INT32
// lookup, as TFLM's reference kernel: FLOAT32 -> FLOAT32 and INT8 -> INT8
// copy rows (GATHER's math, reference/data_movement.h); INT8 -> FLOAT32
// (hybrid) dequantizes them with the table's scale (zero point 0 required).
// An index outside the table fails at eval (at prepare for a constant
// lookup), as in TFLM.
#include <cstring>

#include "microarena/kernels/elementwise_common.h"
#include "microarena/kernels/reference/data_movement.h"
#include "microarena/kernels/registrations.h"
#include "microarena/kernels/tensor_checks.h"

namespace microarena {
namespace {

// Persistent op data (hybrid only): the table's scale, 4 bytes (TFLM's:
// 16 on a 64-bit host).
struct HybridOpData {
  float scale = 0.0f;
};

Status Prepare(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(RequireOperands(context, 2, 1));
  const TensorView lookup = context.input(0);
  const TensorView table = context.input(1);
  const TensorView output = context.output(0);
  if (lookup.type() != TensorType::kInt32 || lookup.rank() != 1) {
    return context.Error(ErrorCode::kInvalidArgument, "lookup tensor %d '%s' is %s of rank %zu; expected INT32 rank 1",
                         lookup.index(), lookup.name(), TensorTypeName(lookup.type()), lookup.rank());
  }
  const bool hybrid = table.type() == TensorType::kInt8 && output.type() == TensorType::kFloat32;
  if ((table.type() != TensorType::kFloat32 && table.type() != TensorType::kInt8) ||
      (output.type() != table.type() && !hybrid)) {
    return context.Error(ErrorCode::kUnsupported,
                         "table %s -> output %s not supported (FLOAT32 -> FLOAT32, INT8 -> INT8 or FLOAT32)",
                         TensorTypeName(table.type()), TensorTypeName(output.type()));
  }
  bool shape_ok = table.rank() >= 2 && output.rank() == table.rank() && Dim(output, 0) == Dim(lookup, 0);
  for (size_t d = 1; shape_ok && d < table.rank(); ++d) shape_ok = Dim(output, d) == Dim(table, d);
  if (!shape_ok) {
    return context.Error(ErrorCode::kInvalidArgument,
                         "output tensor %d (rank %zu) must be [%d lookups] + table tensor %d's shape after its first "
                         "dimension (table rank %zu >= 2)",
                         output.index(), output.rank(), Dim(lookup, 0), table.index(), table.rank());
  }
  if (lookup.is_constant()) {
    const Span<const uint8_t> bytes = lookup.data();
    for (size_t i = 0; i + sizeof(int32_t) <= bytes.size(); i += sizeof(int32_t)) {
      int32_t row = 0;
      std::memcpy(&row, bytes.data() + i, sizeof(row));
      if (row < 0 || row >= Dim(table, 0)) {
        return context.Error(ErrorCode::kInvalidArgument, "lookup %d is outside the table's %d rows",
                             static_cast<int>(row), Dim(table, 0));
      }
    }
  }
  if (!hybrid) return OkStatus();
  elementwise::TensorQuantization table_q;
  MICROARENA_RETURN_IF_ERROR(elementwise::ReadPerTensorQuantization(context, table, "table", &table_q));
  if (table_q.zero_point != 0) {
    return context.Error(ErrorCode::kUnsupported, "table tensor %d has zero point %d; TFLM's hybrid form requires 0",
                         table.index(), table_q.zero_point);
  }
  HybridOpData* data = elementwise::AllocateOpData<HybridOpData>(context);
  if (data == nullptr) return context.OutOfMemory();
  data->scale = table_q.scale;
  *op_data = data;
  return OkStatus();
}

Status Eval(EvalContext& context, const void* op_data) {
  const EvalTensor* lookup = context.input(0);
  const EvalTensor* table = context.input(1);
  EvalTensor* output = context.output(0);
  const auto rows = static_cast<size_t>(table->dim(0));
  const size_t row_size = rows == 0 ? 0 : table->element_count() / rows;
  const auto lookups = static_cast<size_t>(lookup->dim(0));
  const auto* coords = lookup->As<const int32_t>();
  int64_t bad = -1;
  if (table->type == TensorType::kInt8 && output->type == TensorType::kFloat32) {
    bad = reference::GatherRowsDequantized(table->As<const int8_t>(), rows, row_size,
                                           static_cast<const HybridOpData*>(op_data)->scale, coords, lookups,
                                           output->As<float>());
  } else {
    const size_t element_bytes = table->type == TensorType::kFloat32 ? sizeof(float) : sizeof(int8_t);
    bad = reference::Gather(table->data, coords, output->data, 1, 1, rows, lookups, row_size * element_bytes);
  }
  if (bad >= 0) {
    return Status::Error(ErrorCode::kInvalidArgument, "EMBEDDING_LOOKUP: lookup %lld (value %d) is outside [0, %zu)",
                         static_cast<long long>(bad), static_cast<int>(coords[static_cast<size_t>(bad)]), rows);
  }
  return OkStatus();
}

}  // namespace

const KernelRegistration kEmbeddingLookupKernel = {BuiltinOp::kEmbeddingLookup, Prepare, Eval};

}  // namespace microarena
