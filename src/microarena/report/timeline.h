// The plan timeline (host): an ASCII chart of the head, one row per op step,
// offsets across, every live buffer drawn with its legend character — what
// `microarena plan --timeline` prints.
//
//   step op               |0                               16,000 B|      live
//      0 CONV_2D          |AAAAAAAAAAAAAAAA........................|   8,000 B
//      1 DEPTHWISE_CONV_2D|AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBBBBBBBBB|  16,000 B <- peak
//
// One column stands for ceil(head / chart columns) bytes; a cell shows the
// buffer that covers most of its bytes ('.' when none does). Legend
// characters repeat after 62 buffers; the legend lists every buffer with its
// character, so a model with hundreds of buffers stays readable at 100
// columns.
#pragma once

#include <cstddef>
#include <string>

#include "microarena/model/model_view.h"
#include "microarena/report/model_plan.h"

namespace microarena::report {

struct TimelineOptions {
  size_t columns = 100;      // total line width; the chart gets what the labels leave (at least 20:
                             // rows fit from 63 columns, 80 with a tiled segment's marks)
  size_t name_width = 34;    // buffer names in the legend are cut to this
};

// The legend character of buffer `index`: A-Z, a-z, 0-9, then again.
char TimelineCharacter(size_t index);

std::string PlanTimeline(const ModelView& model, const ModelPlan& plan, const TimelineOptions& options = {});

}  // namespace microarena::report
