// SPDX-License-Identifier: MIT
// The flame graph's script, kept apart from the SVG writer so each reads on its own.
// Plain ES5 (no modules, no build step): it runs wherever an SVG opens, from a file.
#include "report/flamegraph_svg.h"

namespace uringscope {

namespace {

constexpr std::string_view kScript = R"js("use strict";
var svg, frames, details, matched, unzoomButton, pad, innerWidth;
function attr(el, name) { return parseFloat(el.getAttribute(name)); }
function rectOf(g) { return g.getElementsByTagName("rect")[0]; }
function init(evt) {
  svg = document.documentElement;
  pad = attr(svg, "data-pad");
  innerWidth = attr(svg, "data-inner-width");
  details = document.getElementById("details");
  matched = document.getElementById("matched");
  unzoomButton = document.getElementById("unzoom");
  frames = Array.prototype.slice.call(document.querySelectorAll("g.f"));
  frames.forEach(function (g) {
    var r = rectOf(g);
    g.setAttribute("data-x", r.getAttribute("x"));
    g.setAttribute("data-w", r.getAttribute("width"));
    g.setAttribute("data-fill", r.getAttribute("fill"));
    g.addEventListener("click", function () { zoom(g); });
    g.addEventListener("mouseover", function () {
      details.textContent = g.getElementsByTagName("title")[0].textContent;
    });
    g.addEventListener("mouseout", function () { details.textContent = " "; });
  });
  unzoomButton.addEventListener("click", unzoom);
  document.getElementById("search").addEventListener("click", askSearch);
  window.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); askSearch(); }
    if (e.key === "Escape") search("");
  });
  frames.forEach(fit);
}
// The longest prefix of the name (with "..") that the browser says fits the frame.
function fit(g) {
  var r = rectOf(g), t = g.getElementsByTagName("text")[0];
  var name = g.getAttribute("data-name"), room = attr(r, "width") - 6;
  t.setAttribute("x", attr(r, "x") + 3);
  t.textContent = name;
  if (t.getComputedTextLength() <= room) return;
  var lo = 0, hi = name.length - 1;
  while (lo < hi) {
    var mid = Math.ceil((lo + hi) / 2);
    t.textContent = name.substring(0, mid) + "..";
    if (t.getComputedTextLength() <= room) lo = mid; else hi = mid - 1;
  }
  t.textContent = lo >= 2 ? name.substring(0, lo) + ".." : "";
}
function show(g, x, w) {
  var r = rectOf(g);
  r.setAttribute("x", x);
  r.setAttribute("width", w);
  g.style.display = "";
  fit(g);
}
// The frame fills the width; its ancestors span it; everything else hides. A child's
// width comes from its weight, not from its drawn width: those are rounded, and a frame
// of a hundredth of a pixel zoomed a hundredfold would carry the rounding with it.
function zoom(target) {
  var x0 = attr(target, "data-x"), w0 = attr(target, "data-w"), y0 = attr(rectOf(target), "y");
  // The frames' x and width are printed with two decimals, each rounded on its own: a
  // child's right edge may overhang its parent's by a hundredth of a pixel. Compared any
  // tighter, a click would hide a child that is inside the frame clicked on.
  var v0 = attr(target, "data-v"), scale = innerWidth / w0, eps = 0.011;
  frames.forEach(function (g) {
    var x = attr(g, "data-x"), w = attr(g, "data-w"), y = attr(rectOf(g), "y");
    if (y >= y0 && x <= x0 + eps && x + w >= x0 + w0 - eps) {
      show(g, pad, innerWidth);
    } else if (y < y0 && x >= x0 - eps && x + w <= x0 + w0 + eps) {
      show(g, pad + (x - x0) * scale, attr(g, "data-v") / v0 * innerWidth);
    } else {
      g.style.display = "none";
    }
  });
  unzoomButton.classList.remove("hide");
}
function unzoom() {
  frames.forEach(function (g) { show(g, attr(g, "data-x"), attr(g, "data-w")); });
  unzoomButton.classList.add("hide");
}
function askSearch() {
  var term = window.prompt("Frames to highlight (regular expression):", "");
  if (term !== null) search(term);
}
// Highlights the frames whose name matches and returns the share of the weight they
// hold, each part counted once (a match inside a matched frame adds nothing).
function search(term) {
  var re = null, spans = [];
  if (term !== "") { try { re = new RegExp(term); } catch (e) { re = null; } }
  frames.forEach(function (g) {
    var hit = re !== null && re.test(g.getAttribute("data-name"));
    rectOf(g).setAttribute("fill", hit ? "rgb(230,0,230)" : g.getAttribute("data-fill"));
    if (hit) spans.push([attr(g, "data-x"), attr(g, "data-x") + attr(g, "data-w")]);
  });
  spans.sort(function (a, b) { return a[0] - b[0]; });
  var covered = 0, end = -Infinity;
  spans.forEach(function (s) {
    if (s[0] >= end) { covered += s[1] - s[0]; end = s[1]; }
    else if (s[1] > end) { covered += s[1] - end; end = s[1]; }
  });
  var pct = 100 * covered / innerWidth;
  matched.textContent = re === null ? " " : "Matched: " + pct.toFixed(2) + "%";
  return re === null ? 0 : pct;
}
)js";

}  // namespace

std::string_view flamegraph_script() { return kScript; }

}  // namespace uringscope
