// Live panels without a kernel: each slider (or dropdown) swaps in a figure drawn at build time.
// The frames cover every control varied alone around the defaults, so moving one control returns the others
// to their defaults.  A setting the callback refused shows its error, as the notebook's panel does.
(function () {
  "use strict";
  function setup(root) {
    var data = JSON.parse(root.querySelector("script.dpbook-live-data").textContent);
    var base = root.getAttribute("data-base");
    var img = root.querySelector("img.dpbook-live-figure");
    var err = root.querySelector(".dpbook-live-error");
    var fields = Array.prototype.slice.call(root.querySelectorAll("[data-index]"));
    var outputs = root.querySelectorAll("output");
    var defaults = data.controls.map(function (c) { return c.default; });
    function show(moved) {
      var idx = fields.map(function (f, i) {
        if (i !== moved) { f.value = String(defaults[i]); }
        return parseInt(f.value, 10);
      });
      idx.forEach(function (v, i) { outputs[i].textContent = data.controls[i].labels[v]; });
      var frame = data.frames[idx.join(",")];
      if (typeof frame === "string") {
        err.hidden = true;
        img.classList.remove("dpbook-live-stale");
        img.src = base + frame;
      } else if (frame && frame.error) {
        err.hidden = false;
        err.textContent = "These settings do not work: " + frame.error;
        img.classList.add("dpbook-live-stale");
      }
      root.setAttribute("data-setting", idx.join(","));
    }
    fields.forEach(function (f, i) {
      f.addEventListener("input", function () { show(i); });
      f.addEventListener("change", function () { show(i); });
    });
    root.setAttribute("data-ready", "1");
  }
  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".dpbook-live"), setup);
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
