// The op table: for every builtin microarena has a kernel for, the tensor
// types that kernel's Prepare accepts, so a user (README, `microarena ops`)
// or a tool (`microarena inspect`) can check a model before running it.
//
// The table is constant data keyed by BuiltinOp and names no kernel, so a
// resolver that registers a few kernels still links only those.
// tests/ops_table_test.cc holds it to AllOpsResolver: one entry per kernel.
//
// An entry lists the types of one operand (usually input 0, the
// activation); `note` states the other type rules Prepare enforces.
// Prepare checks more than types (quantization, shapes, options): an op
// whose types the table accepts can still be refused at AllocateTensors.
#pragma once

#include <cstdint>

#include "microarena/base/span.h"
#include "microarena/model/builtin_op.h"
#include "microarena/model/tensor_type.h"

namespace microarena {

// The tensor whose types an OpTypes entry lists.
enum class TypedOperand : uint8_t {
  kInput0,   // the first input (the activation of most ops)
  kInput1,   // the second input (SELECT_V2's x, FILL's value, SPLIT's value)
  kInput2,   // the third input (TRANSPOSE_CONV's data: input 0 is its output shape)
  kOutput0,  // the first output
  kNone,     // types are not checked against the table (control flow)
};

// One bit per TensorType: bit (1 << value).
using TensorTypeMask = uint32_t;

constexpr TensorTypeMask TypeBit(TensorType type) { return TensorTypeMask{1} << static_cast<int>(type); }

// Every type of the format (TensorType values 0..17).
constexpr TensorTypeMask kAnyTensorType = (TensorTypeMask{1} << 18) - 1;
// Types whose elements are 1, 2 or 4 bytes (TRANSPOSE, STRIDED_SLICE); a
// RESOURCE tensor holds a 4-byte id (TensorTypeBits).
constexpr TensorTypeMask k1To4ByteTypes = TypeBit(TensorType::kFloat32) | TypeBit(TensorType::kFloat16) |
                                          TypeBit(TensorType::kInt32) | TypeBit(TensorType::kUInt32) |
                                          TypeBit(TensorType::kInt16) | TypeBit(TensorType::kUInt16) |
                                          TypeBit(TensorType::kInt8) | TypeBit(TensorType::kUInt8) |
                                          TypeBit(TensorType::kBool) | TypeBit(TensorType::kResource);
// Types whose elements are whole bytes (SQUEEZE, EXPAND_DIMS, BROADCAST_TO).
constexpr TensorTypeMask kWholeByteTypes = k1To4ByteTypes | TypeBit(TensorType::kInt64) | TypeBit(TensorType::kUInt64) |
                                           TypeBit(TensorType::kFloat64) | TypeBit(TensorType::kComplex64) |
                                           TypeBit(TensorType::kComplex128);

struct OpTypes {
  BuiltinOp op;
  TypedOperand operand;  // the tensor `types` describes
  TensorTypeMask types;  // accepted types of that tensor
  // INT16 is accepted only as 16x8: INT16 activations with INT8 weights
  // (input 1), as TFLM's 16x8 kernels.
  bool int16_is_16x8;
  const char* note;  // other type rules Prepare enforces; "" when none
};

// The table, sorted by op name (BuiltinOpName).
Span<const OpTypes> OpTypeTable();
// The entry for `op`, or nullptr when microarena has no kernel for it.
const OpTypes* FindOpTypes(BuiltinOp op);
inline bool Accepts(const OpTypes& entry, TensorType type) { return (entry.types & TypeBit(type)) != 0; }

// A custom op TFLM ships, found by name (CIRCULAR_BUFFER, ...): its types
// as for a builtin (`types.op` is BuiltinOp::kCustom).
struct CustomOpTypes {
  const char* name;
  OpTypes types;
};

// The custom ops AllOpsResolver has a kernel for, sorted by name.
Span<const CustomOpTypes> CustomOpTypeTable();
// The entry for the custom op `name`, or nullptr.
const OpTypes* FindCustomOpTypes(const char* name);

// The builtins stock TFLM registers in MicroMutableOpResolver, sorted by
// code (custom and signal-library ops are not builtins). The ones without
// an OpTypeTable entry are what microarena lacks to run every TFLM model.
Span<const BuiltinOp> TflmBuiltinOps();

}  // namespace microarena
