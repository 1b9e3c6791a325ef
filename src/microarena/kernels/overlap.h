// How far an op's output may overlap its input: the minimal safe
// displacement D of each kernel family, derived from the order in which its
// reference loops read the input and write the output. A kernel's prepare
// declares D with PrepareContext::AllowOutputOverlap; the planner may then
// put the output so that offset(input) - offset(output) >= D (the output
// starts at least D bytes below the input, and may run into it).
//
// Elementwise (output element i computed from input element i only, in
// ascending i, the input element read before the output element written):
// after output element i is written, only input elements j > i are read.
// With element sizes s_in and s_out and n elements, the write of element i
// ends at offset(O) + (i + 1) s_out and the next read starts at
// offset(I) + (i + 1) s_in, so it is safe when, for i in [0, n - 1),
//     offset(O) + (i + 1) s_out <= offset(I) + (i + 1) s_in
//   <=> offset(I) - offset(O) >= (i + 1)(s_out - s_in),
// hence D = (n - 1)(s_out - s_in) when s_out > s_in, else D = 0 (in place,
// or the output anywhere below the input).
//
// Row-lagged windows (CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D,
// MAX_POOL_2D; batch 1, NHWC): the loops run over output rows y ascending,
// then columns, then channels, and every output byte of row y is written
// while row y is computed. Row y reads input rows from
// first(y) = max(0, y*stride - pad_top) on (window taps above row 0 are
// padding and are skipped; dilation only moves later taps further down),
// and first(y) never decreases with y. With row sizes R_in = W_in C_in e and
// R_out = W_out C_out e (e = element size), the rows 0..y of the output
// occupy [offset(O), offset(O) + (y + 1) R_out) once row y is done, and from
// row y on nothing below offset(I) + first(y) R_in is read. So it is safe when
//     offset(O) + (y + 1) R_out <= offset(I) + first(y) R_in   for every y,
// hence D = max over y of ((y + 1) R_out - first(y) R_in)  (always >= R_out).
// Example: a 1x1 convolution 48x48x8 -> 48x48x16 int8 (R_in = 384,
// R_out = 768, stride 1, no padding): D = 48*768 - 47*384 = 18,816, so the
// output (36,864 B) and the input (18,432 B) fit in 18,816 + 18,432 = 37,248 B
// instead of 55,296 B. Batch > 1: no overlap is declared.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/base/status.h"
#include "microarena/kernels/kernel.h"
#include "microarena/model/model_view.h"

namespace microarena {

// D for an elementwise op over `element_count` elements (formula above).
// Returns false on overflow.
bool ElementwiseDisplacement(size_t element_count, size_t input_element_bytes, size_t output_element_bytes,
                             size_t* displacement_bytes);

// D for a row-lagged window op (formula above). Returns false on overflow or
// a non-positive extent.
bool RowLagDisplacement(int64_t output_height, int64_t input_row_bytes, int64_t output_row_bytes, int64_t stride,
                        int64_t padding_top, size_t* displacement_bytes);

// Declares the elementwise overlap of output 0 over input `input` (which
// must have output 0's element count).
Status DeclareElementwiseOverlap(PrepareContext& context, size_t input);

// Declares the row-lagged overlap of output 0 over input 0 for a rank-4
// NHWC window op whose input and output were checked; nothing for batch > 1.
Status DeclareRowLagOverlap(PrepareContext& context, int32_t stride_height, int32_t padding_top);

// Prepare of an elementwise kernel (`kPrepare`), then the overlap of output
// 0 over each of inputs [0, kInputs) that has output 0's element count (a
// broadcast operand is read more than once and gets none). Each such kernel
// reads element i of that input before it writes element i of the output,
// in ascending i (reference/activations.h, add.h, broadcast.h, mul.h,
// quantize.h, leaky_relu.h, hard_swish.h; the shape ops copy with memmove).
template <Status (*kPrepare)(PrepareContext&, const void**), size_t kInputs>
Status PrepareWithElementwiseOverlap(PrepareContext& context, const void** op_data) {
  MICROARENA_RETURN_IF_ERROR(kPrepare(context, op_data));
  for (size_t i = 0; i < kInputs && i < context.input_count(); ++i) {
    if (!context.has_input(i) || context.output_count() < 1) continue;
    if (context.input(i).element_count() != context.output(0).element_count()) continue;
    MICROARENA_RETURN_IF_ERROR(DeclareElementwiseOverlap(context, i));
  }
  return OkStatus();
}

}  // namespace microarena
