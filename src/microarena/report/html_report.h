// The HTML plan report (host): one self-contained page (inline CSS, SVG and a
// small inline script; nothing fetched from the network) with
//  - the plan as an SVG chart: x = op step, y = offset in the head, one
//    rectangle (class "buffer") per planned buffer; hovering one shows its
//    owner, shape, bytes, lifetime and offset; the peak step and the lower
//    bound are marked;
//  - the arena and the persistent area by use as stacked bars;
//  - the tables of the text dump (arena, head figures, tensors live at the
//    peak, read-only bytes per layer, buffers).
// The script writes the number of buffer rectangles into
// <body data-buffer-rects="N"> and any script error into
// <body data-script-errors="..."> (and a visible banner), so a headless
// browser's DOM dump tells whether the page rendered. What
// `microarena plan --html FILE` writes.
#pragma once

#include <string>

#include "microarena/model/model_view.h"
#include "microarena/report/model_plan.h"

namespace microarena::report {

std::string PlanHtml(const ModelView& model, const std::string& model_path, const ModelPlan& plan);

// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
std::string HtmlEscape(const std::string& text);

}  // namespace microarena::report
