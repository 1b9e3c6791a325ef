#include "microarena/report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "microarena/report/format.h"
#include "microarena/report/plan_details.h"
#include "microarena/report/tiling_search.h"

namespace microarena::report {
namespace {

constexpr double kChartWidth = 1040.0;   // plot area, px
constexpr double kChartHeight = 440.0;
constexpr double kMarginLeft = 86.0;
constexpr double kMarginTop = 28.0;
constexpr double kMarginBottom = 44.0;
constexpr double kMarginRight = 24.0;

constexpr const char* kStyle = R"(
:root { --ink: #1d2430; --muted: #5b6675; --line: #d9dee5; --panel: #f6f8fa; --accent: #c0392b; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 32px 0 10px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.sub { color: var(--muted); margin: 0 0 18px; word-break: break-all; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .note { color: var(--muted); font-size: 12px; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font: 12px system-ui, sans-serif; fill: var(--muted); }
svg .axis { stroke: #9aa4b1; stroke-width: 1; }
svg .grid { stroke: #eef1f4; stroke-width: 1; }
svg rect.buffer { stroke: rgba(0,0,0,.35); stroke-width: .6; cursor: pointer; }
svg rect.buffer.scratch { stroke-dasharray: 3 2; }
svg rect.buffer:hover, svg rect.buffer.hot { stroke: #000; stroke-width: 2; }
svg .peak { fill: rgba(192,57,43,.08); stroke: none; }
svg .band { fill: rgba(78,121,167,.10); stroke: rgba(78,121,167,.6); stroke-dasharray: 2 3; }
svg .bound { stroke: var(--accent); stroke-width: 1.2; stroke-dasharray: 6 4; }
svg text.mark { fill: var(--accent); font-weight: 600; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 8px 0 0; padding: 0; list-style: none; color: var(--muted); }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px; vertical-align: -2px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { background: var(--panel); font-weight: 600; position: sticky; top: 0; }
td.n, th.n { text-align: right; }
td.name { white-space: normal; word-break: break-all; max-width: 460px; }
tr.total td { font-weight: 600; border-top: 2px solid var(--line); }
.scroll { max-height: 520px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
#tip { position: fixed; pointer-events: none; background: #1d2430; color: #fff; padding: 8px 10px; border-radius: 6px;
       font-size: 12px; line-height: 1.5; max-width: 420px; display: none; z-index: 10; box-shadow: 0 4px 14px rgba(0,0,0,.25); }
#tip b { display: block; font-size: 13px; margin-bottom: 2px; word-break: break-all; }
#script-error { display: none; background: #fdecea; color: #8a1c12; border: 1px solid #f5c2bc; padding: 8px 12px; border-radius: 6px; }
)";

// First in <head>: records any script error in the DOM before other scripts run.
constexpr const char* kErrorScript = R"(
window.addEventListener('error', function (e) {
  var message = (e && e.message) ? e.message : 'script error';
  document.documentElement.setAttribute('data-script-errors', message);
  if (document.body) {
    document.body.setAttribute('data-script-errors', message);
    var banner = document.getElementById('script-error');
    if (banner) { banner.textContent = 'Script error: ' + message; banner.style.display = 'block'; }
  }
});
)";

// Last in <body>: the tooltip, and the rectangle count for tests.
constexpr const char* kPageScript = R"(
(function () {
  var tip = document.getElementById('tip');
  var rects = document.querySelectorAll('rect.buffer');
  function show(e) {
    var r = e.target;
    tip.innerHTML = '';
    var title = document.createElement('b');
    title.textContent = r.getAttribute('data-name');
    tip.appendChild(title);
    var lines = ['kind ' + r.getAttribute('data-kind') + ', shape ' + r.getAttribute('data-shape'),
                 r.getAttribute('data-bytes') + ' B (requested ' + r.getAttribute('data-requested') + ' B)',
                 'lifetime: op steps ' + r.getAttribute('data-lifetime'),
                 'offset ' + r.getAttribute('data-offset') + ' .. ' + r.getAttribute('data-end')];
    lines.forEach(function (text) { var d = document.createElement('div'); d.textContent = text; tip.appendChild(d); });
    tip.style.display = 'block';
    move(e);
  }
  function move(e) {
    var x = e.clientX + 14, y = e.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth) x = e.clientX - tip.offsetWidth - 14;
    if (y + tip.offsetHeight > window.innerHeight) y = e.clientY - tip.offsetHeight - 14;
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }
  function hide() { tip.style.display = 'none'; }
  for (var i = 0; i < rects.length; ++i) {
    rects[i].addEventListener('mouseenter', show);
    rects[i].addEventListener('mousemove', move);
    rects[i].addEventListener('mouseleave', hide);
  }
  document.body.setAttribute('data-buffer-rects', String(rects.length));
})();
)";

std::string Number(double value) { return fmt::format("{:.2f}", value); }

std::string TensorColor(size_t index) {
  const double hue = std::fmod(static_cast<double>(index) * 137.508, 360.0);
  return fmt::format("hsl({:.1f}, 58%, 62%)", hue);
}

const char* UseColor(PersistentUse use) {
  switch (use) {
    case PersistentUse::kTensorMetadata: return "#4e79a7";
    case PersistentUse::kOpTable: return "#76b7b2";
    case PersistentUse::kOpData: return "#f28e2b";
    case PersistentUse::kVariableState: return "#e15759";
    case PersistentUse::kScratchHandles: return "#59a14f";
    case PersistentUse::kWeightsCopy: return "#b07aa1";
    case PersistentUse::kTilingState: return "#edc948";
  }
  return "#999";
}

// A round step for an axis covering `range` in about `ticks` steps.
double NiceStep(double range, double ticks) {
  if (range <= 0) return 1;
  const double raw = range / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (raw <= m * power) return m * power;
  }
  return 10 * power;
}

std::string ShapeOf(const ModelView& model, const BufferRequest& b) {
  if (b.kind == BufferKind::kScratch) return "scratch";
  TensorView tensor = model.subgraph(static_cast<size_t>(b.subgraph_index)).tensor(static_cast<size_t>(b.owner_index));
  return std::string(tensor.type() == TensorType::kInt8 ? "INT8 " : "") +
         ShapeText(tensor.shape().data(), tensor.rank());
}

std::string PlanChart(const ModelView& model, const ModelPlan& plan, const PlanDetails& details) {
  const double steps = static_cast<double>(std::max<size_t>(details.step_count, 1));
  const double head = static_cast<double>(std::max<size_t>(plan.head_bytes, 1));
  const double sx = kChartWidth / steps;
  const double sy = kChartHeight / head;
  const double width = kMarginLeft + kChartWidth + kMarginRight;
  const double height = kMarginTop + kChartHeight + kMarginBottom;
  const double bottom = kMarginTop + kChartHeight;
  std::string svg = fmt::format(
      "<svg id=\"plan-chart\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"head plan: op step across, offset up\">\n",
      Number(width), Number(height), Number(width), Number(height));
  // Grid and y axis (bytes).
  const double y_step = NiceStep(head, 6);
  for (double v = 0; v <= head + 0.5; v += y_step) {
    const double y = bottom - v * sy;
    svg += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", Number(kMarginLeft),
                       Number(y), Number(kMarginLeft + kChartWidth), Number(y));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", Number(kMarginLeft - 6),
                       Number(y + 4), HtmlEscape(Thousands(static_cast<uint64_t>(v))));
  }
  // x axis (op steps).
  const double x_step = std::max(1.0, NiceStep(steps, 16));
  for (double s = 0; s < steps; s += x_step) {
    const double x = kMarginLeft + (s + 0.5) * sx;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", Number(x), Number(bottom + 16),
                       static_cast<int>(s));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">op step</text>\n",
                     Number(kMarginLeft + kChartWidth / 2), Number(bottom + 36));
  svg += fmt::format("<text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">offset in "
                     "the head (bytes)</text>\n",
                     Number(kMarginTop + kChartHeight / 2), Number(kMarginTop + kChartHeight / 2));
  // The peak step.
  if (details.live_peak_step >= 0) {
    const double x = kMarginLeft + details.live_peak_step * sx;
    svg += fmt::format("<rect class=\"peak\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", Number(x),
                       Number(kMarginTop), Number(sx), Number(kChartHeight));
  }
  // Segments run band by band: their steps shaded, labelled under the axis.
  for (const TiledSegment& segment : plan.tiling) {
    const double x = kMarginLeft + segment.first_op * sx;
    const double w = (segment.last_op - segment.first_op + 1) * sx;
    const std::string label = SegmentLabel(model, segment);
    svg += fmt::format("<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" data-segment=\"{}\"/>\n",
                       Number(x), Number(kMarginTop), Number(w), Number(kChartHeight), HtmlEscape(label));
    svg += fmt::format("<text class=\"mark\" x=\"{}\" y=\"{}\">band by band: {}</text>\n", Number(x + 2),
                       Number(kMarginTop + 12), HtmlEscape(label));
  }
  // One rectangle per buffer.
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& b = plan.buffers[i];
    const double x = kMarginLeft + b.lifetime.first_op * sx;
    const double w = std::max(1.0, b.lifetime.length() * sx);
    const double top = static_cast<double>(plan.offsets_bytes[i] + b.size_bytes);
    const double h = std::max(0.75, static_cast<double>(b.size_bytes) * sy);
    const bool scratch = b.kind == BufferKind::kScratch;
    const std::string name = BufferLabel(model, b);
    svg += fmt::format(
        "<rect class=\"buffer{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" data-index=\"{}\" "
        "data-kind=\"{}\" data-name=\"{}\" data-shape=\"{}\" data-bytes=\"{}\" data-requested=\"{}\" "
        "data-lifetime=\"[{}, {})\" data-offset=\"{}\" data-end=\"{}\" aria-label=\"{}\"/>\n",
        scratch ? " scratch" : "", Number(x), Number(bottom - top * sy), Number(w), Number(h),
        scratch ? "hsl(28, 92%, 58%)" : TensorColor(i), i, BufferKindName(b.kind), HtmlEscape(name),
        HtmlEscape(ShapeOf(model, b)), Thousands(b.size_bytes),
        Thousands(i < plan.requested_bytes.size() ? plan.requested_bytes[i] : b.size_bytes), b.lifetime.first_op,
        b.lifetime.end_op, Thousands(plan.offsets_bytes[i]), Thousands(plan.offsets_bytes[i] + b.size_bytes),
        HtmlEscape(name));
  }
  // The lower bound and the peak label.
  const double bound_y = bottom - static_cast<double>(plan.lower_bound_bytes) * sy;
  svg += fmt::format("<line class=\"bound\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", Number(kMarginLeft),
                     Number(bound_y), Number(kMarginLeft + kChartWidth), Number(bound_y));
  if (details.live_peak_step >= 0) {
    const double x = kMarginLeft + (details.live_peak_step + 0.5) * sx;
    const bool left = x > kMarginLeft + kChartWidth * 0.7;
    svg += fmt::format("<path class=\"peak-mark\" d=\"M {} {} l -6 9 h 12 z\" fill=\"#c0392b\"/>\n", Number(x),
                       Number(bottom + 1));
    svg += fmt::format("<text class=\"mark\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">peak {} at {} (lower bound)</text>\n",
                       Number(x), Number(kMarginTop - 10), left ? "end" : "start",
                       HtmlEscape(Bytes(details.live_peak_bytes)),
                       HtmlEscape(StepLabel(model, plan, details.live_peak_step)));
  }
  svg += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>"
                     "<line class=\"axis\" x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\"/>\n",
                     Number(kMarginLeft), Number(bottom), Number(kMarginLeft + kChartWidth), Number(kMarginTop));
  svg += "</svg>\n";
  return svg;
}

struct Segment {
  std::string label;
  size_t bytes = 0;
  std::string color;
};

// A horizontal stacked bar with a legend under it.
std::string StackedBar(const std::string& id, const std::vector<Segment>& segments) {
  size_t total = 0;
  for (const Segment& s : segments) total += s.bytes;
  const double width = 1000.0;
  std::string out = fmt::format("<svg id=\"{}\" viewBox=\"0 0 {} 34\" width=\"{}\" height=\"34\">", id,
                                Number(width), Number(width));
  double x = 0;
  for (const Segment& s : segments) {
    if (s.bytes == 0 || total == 0) continue;
    const double w = width * static_cast<double>(s.bytes) / static_cast<double>(total);
    out += fmt::format("<rect class=\"part\" x=\"{}\" y=\"2\" width=\"{}\" height=\"30\" fill=\"{}\" "
                       "aria-label=\"{}: {}\"/>",
                       Number(x), Number(w), s.color, HtmlEscape(s.label), Bytes(s.bytes));
    if (w > 90) {
      out += fmt::format("<text x=\"{}\" y=\"22\" style=\"fill:#fff;font-weight:600\">{}</text>", Number(x + 6),
                         HtmlEscape(Bytes(s.bytes)));
    }
    x += w;
  }
  out += "</svg>\n<ul class=\"legend\">";
  for (const Segment& s : segments) {
    const double share = total == 0 ? 0.0 : 100.0 * static_cast<double>(s.bytes) / static_cast<double>(total);
    out += fmt::format("<li><i style=\"background:{}\"></i>{} {} ({:.1f} %)</li>", s.color, HtmlEscape(s.label),
                       Bytes(s.bytes), share);
  }
  return out + "</ul>\n";
}

std::string Card(const std::string& label, size_t bytes, const std::string& note) {
  return fmt::format("<div class=\"card\"><div class=\"label\">{}</div><div class=\"value\">{}</div>"
                     "<div class=\"note\">{}</div></div>\n",
                     HtmlEscape(label), Bytes(bytes), HtmlEscape(note));
}

// A table: `right[i]` marks numeric columns; a row whose first cell is
// "total" is drawn as a totals row.
std::string Table(const std::vector<std::string>& headers, const std::vector<bool>& right,
                  const std::vector<std::vector<std::string>>& rows, const std::string& name_column = "") {
  std::string out = "<table><thead><tr>";
  for (size_t c = 0; c < headers.size(); ++c) {
    out += fmt::format("<th{}>{}</th>", right[c] ? " class=\"n\"" : "", HtmlEscape(headers[c]));
  }
  out += "</tr></thead><tbody>\n";
  for (const std::vector<std::string>& row : rows) {
    out += !row.empty() && row[0] == "total" ? "<tr class=\"total\">" : "<tr>";
    for (size_t c = 0; c < row.size(); ++c) {
      const char* cls = right[c] ? " class=\"n\"" : (headers[c] == name_column ? " class=\"name\"" : "");
      out += fmt::format("<td{}>{}</td>", cls, HtmlEscape(row[c]));
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string PlanHtml(const ModelView& model, const std::string& model_path, const ModelPlan& plan) {
  const PlanDetails details = AnalyzePlan(model, plan);
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>microarena plan: {}</title>\n", HtmlEscape(model_path));
  out += fmt::format("<script>{}</script>\n<style>{}</style>\n</head>\n<body>\n<main>\n", kErrorScript, kStyle);
  out += "<div id=\"script-error\"></div>\n";
  out += "<h1>Memory plan</h1>\n";
  out += fmt::format("<p class=\"sub\">{} &middot; planner {}{} &middot; alignment {} B &middot; {} buffers over {} "
                     "op steps</p>\n",
                     HtmlEscape(model_path), HtmlEscape(plan.planner), plan.proven_optimal ? " (proven optimal)" : "",
                     plan.alignment_bytes, plan.buffers.size(), details.step_count);

  out += "<div class=\"cards\">\n";
  if (plan.has_runtime) {
    out += Card("arena", plan.arena_bytes(), "persistent + max(head, temp peak)");
    out += Card("persistent (RAM)", plan.persistent_bytes, "tensor metadata, op data, state");
  }
  out += Card("head (RAM)", plan.head_bytes, fmt::format("gap {:.2f} % over the lower bound", plan.gap_percent()));
  out += Card("lower bound", plan.lower_bound_bytes,
              details.live_peak_step < 0 ? "" : StepLabel(model, plan, details.live_peak_step));
  if (plan.has_runtime) out += Card("temp peak (RAM)", plan.temp_peak_bytes, "during AllocateTensors");
  out += Card("read-only (flash)", details.read_only_total.total_bytes(), "weights, biases, quantization");
  if (plan.has_runtime && plan.runtime.kernel_data.state == KernelDataState::kUsed) {
    const KernelDataUse& kd = plan.runtime.kernel_data;
    out += Card("kernel data (flash)", kd.flash_bytes,
                fmt::format("{} ops' data read from the model: {} B of RAM saved", kd.ops_in_flash,
                            Thousands(kd.ram_bytes_saved)));
  }
  out += "</div>\n";

  out += "<h2>Head plan</h2>\n";
  out += "<p class=\"sub\">One rectangle per buffer: across, the op steps it lives [first, end); up, its bytes in "
         "the head. The shaded column is the busiest step; the dashed line is the lower bound. Hover a buffer for "
         "details.</p>\n";
  out += PlanChart(model, plan, details);
  out += "<ul class=\"legend\"><li><i style=\"background:hsl(200,58%,62%)\"></i>activation tensor (one colour "
         "each)</li><li><i style=\"background:hsl(28,92%,58%)\"></i>op scratch (dashed outline)</li>"
         "<li><i style=\"background:rgba(192,57,43,.25)\"></i>peak step</li>";
  if (!plan.tiling.empty()) {
    out += "<li><i style=\"background:rgba(78,121,167,.25)\"></i>ops run band by band (their inner maps are "
           "windows of rows)</li>";
  }
  out += "</ul>\n";

  if (plan.has_runtime) {
    out += "<h2>Arena</h2>\n";
    out += StackedBar("arena-bar", {{"persistent", plan.persistent_bytes, "#4e79a7"},
                                    {"head", plan.head_bytes, "#59a14f"},
                                    {"temp beyond the head", plan.temp_peak_bytes > plan.head_bytes
                                                                 ? plan.temp_peak_bytes - plan.head_bytes
                                                                 : 0,
                                     "#edc948"}});
    out += "<h2>Persistent area by use</h2>\n";
    std::vector<Segment> parts;
    for (const PersistentPart& part : details.persistent) {
      parts.push_back({PersistentUseName(part.use), part.bytes, UseColor(part.use)});
    }
    out += StackedBar("persistent-bar", parts);
  } else if (!plan.runtime_note.empty()) {
    out += fmt::format("<p class=\"sub\">Runtime figures not available: {}</p>\n", HtmlEscape(plan.runtime_note));
  }

  out += "<h2>Head figures</h2>\n";
  std::vector<std::vector<std::string>> figures;
  figures.push_back({"lower bound", Bytes(plan.lower_bound_bytes),
                     details.live_peak_step < 0 ? "" : StepLabel(model, plan, details.live_peak_step)});
  figures.push_back({"planner head", Bytes(plan.head_bytes), fmt::format("gap {:.2f} %", plan.gap_percent())});
  figures.push_back({"activation peak", Bytes(details.activation_peak_bytes),
                     details.activation_peak_step < 0 ? "" : StepLabel(model, plan, details.activation_peak_step)});
  figures.push_back({"scratch peak", Bytes(details.scratch_peak_bytes),
                     details.scratch_peak_step < 0 ? "no op asks for scratch"
                                                   : StepLabel(model, plan, details.scratch_peak_step)});
  if (details.largest_scratch_buffer >= 0) {
    const BufferRequest& b = plan.buffers[static_cast<size_t>(details.largest_scratch_buffer)];
    figures.push_back({"largest scratch", Bytes(b.size_bytes), BufferLabel(model, b)});
  }
  figures.push_back({"alignment padding (head)", Bytes(details.head_padding_bytes),
                     fmt::format("sizes rounded up to {} B", plan.alignment_bytes)});
  if (plan.has_runtime) {
    figures.push_back({"alignment padding (persistent)", Bytes(details.persistent_padding_bytes), ""});
  }
  for (const PlannerHead& other : plan.comparison) {
    figures.push_back({"head with " + other.planner, Bytes(other.head_bytes), "for comparison"});
  }
  out += Table({"figure", "bytes", "where"}, {false, true, false}, figures);

  if (details.activation_peak_step >= 0) {
    out += fmt::format("<h2>Live at the activation peak ({})</h2>\n",
                       HtmlEscape(StepLabel(model, plan, details.activation_peak_step)));
    std::vector<std::vector<std::string>> rows;
    for (size_t i : details.activation_peak_buffers) {
      const BufferRequest& b = plan.buffers[i];
      rows.push_back({std::to_string(i), BufferLabel(model, b), ShapeOf(model, b), Thousands(b.size_bytes),
                      fmt::format("[{}, {})", b.lifetime.first_op, b.lifetime.end_op)});
    }
    out += Table({"#", "tensor", "shape", "bytes", "lifetime"}, {true, false, false, true, false}, rows, "tensor");
  }

  out += "<h2>Read-only persistent (flash) per layer</h2>\n";
  std::vector<std::vector<std::string>> flash;
  for (const LayerFlash& layer : details.read_only_layers) {
    flash.push_back({layer.label(), layer.op, Thousands(layer.weights_bytes),
                     Thousands(layer.bias_bytes), Thousands(layer.quantization_bytes),
                     Thousands(layer.total_bytes())});
  }
  const LayerFlash& total = details.read_only_total;
  flash.push_back({"total", "", Thousands(total.weights_bytes), Thousands(total.bias_bytes),
                   Thousands(total.quantization_bytes), Thousands(total.total_bytes())});
  out += "<div class=\"scroll\">" +
         Table({"op", "type", "weights (B)", "biases (B)", "quantization (B)", "total (B)"},
               {false, false, true, true, true, true}, flash) +
         "</div>\n";

  out += "<h2>Buffers</h2>\n";
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferRequest& b = plan.buffers[i];
    rows.push_back({std::to_string(i), BufferKindName(b.kind), BufferLabel(model, b), ShapeOf(model, b),
                    Thousands(b.size_bytes), fmt::format("[{}, {})", b.lifetime.first_op, b.lifetime.end_op),
                    Thousands(plan.offsets_bytes[i]), Thousands(plan.offsets_bytes[i] + b.size_bytes)});
  }
  out += "<div class=\"scroll\">" +
         Table({"#", "kind", "owner", "shape", "bytes", "lifetime", "offset", "end"},
               {true, false, false, false, true, false, true, true}, rows, "owner") +
         "</div>\n";
  out += "</main>\n<div id=\"tip\"></div>\n";
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kPageScript);
  return out;
}

}  // namespace microarena::report
