/* gcev report: fills the GC table from the page's data, sorts and pages it, and shows a GC's
 * values when a chart is hovered. It draws and sorts only: every value comes from the builder. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("gcev-data").textContent);
  var C = {};
  D.cols.forEach(function (name, i) { C[name] = i; });
  var G = D.gcs, rows = D.rows || 1;
  var order = G.map(function (_, i) { return i; });
  var page = 0, sortCol = null, sortDir = 1, lit = -1;
  var table = document.getElementById("gc-table");
  var tbody = table.tBodies[0];
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var pager = document.getElementById("pager");
  var tip = document.getElementById("tip");
  var genName = ["gen0", "gen1", "gen2", "LOH", "POH"];

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return "&#" + c.charCodeAt(0) + ";";
    });
  }
  /* one precision per unit, as the builder's figures: ms and MB 3 decimals, rates 1 */
  function ms(v) { return v == null ? "\u2013" : v.toFixed(3); }
  function rate(v) { return v == null ? "\u2013" : v.toFixed(1); }
  function mb(v) { return v == null ? "\u2013" : (v / 1e6).toFixed(3); }
  function int(v) { return v == null ? "\u2013" : String(v); }
  function typeName(v) { return v == null ? "\u2013" : (D.types[v] || String(v)); }
  function reason(v) { return v == null ? "\u2013" : (D.reasons[v] || String(v)); }
  function notes(g) {
    var f = g[C.flags], out = [];
    if (f & 1) out.push("events lost while open");
    if (f & 2) out.push("shared suspension");
    if (!(f & 4)) out.push("not in GCStats");
    if (g[C.nested] != null) out.push("during BGC #" + g[C.nested]);
    return out.join("; ");
  }
  var FMT = { int: int, ms: ms, mb: mb, rate: rate, type: typeName, reason: reason };
  var TEXT = { label: 1, reason: 1, flags: 1 }; /* left-aligned words */
  var cols = heads.map(function (th) {
    return { c: C[th.getAttribute("data-c")], f: th.getAttribute("data-f") };
  });
  function cell(g, col) {
    if (col.f === "flags") return esc(notes(g));
    if (col.f === "label") return esc(g[C.label] || int(g[C.gen]));
    return esc(FMT[col.f](g[col.c]));
  }

  function render() {
    var pages = Math.max(1, Math.ceil(order.length / rows));
    if (page >= pages) page = pages - 1;
    var html = [];
    for (var k = page * rows; k < Math.min(order.length, (page + 1) * rows); k++) {
      var i = order[k], g = G[i];
      var cls = (g[C.flags] & 1 ? "inc" : "") + (i === lit ? " hl" : "");
      html.push('<tr id="gc-' + i + '" data-i="' + i + '"' + (cls.trim() ? ' class="' + cls.trim() + '"' : "") + ">");
      for (var c = 0; c < cols.length; c++) {
        html.push((TEXT[cols[c].f] ? '<td class="l">' : "<td>") + cell(g, cols[c]) + "</td>");
      }
      html.push("</tr>");
    }
    tbody.innerHTML = html.join("");
    if (pages > 1) {
      pager.hidden = false;
      pager.innerHTML = '<button type="button" data-p="-1">\u2190 Previous</button><span>Page ' + (page + 1) +
        " of " + pages + " (" + rows + " GCs a page)</span>" + '<button type="button" data-p="1">Next \u2192</button>';
    }
  }
  pager.addEventListener("click", function (e) {
    var p = e.target.getAttribute && e.target.getAttribute("data-p");
    if (p) { page = Math.max(0, page + Number(p)); render(); }
  });

  heads.forEach(function (th, k) {
    th.tabIndex = 0;
    function sort() {
      var c = cols[k].c;
      sortDir = sortCol === c ? -sortDir : (cols[k].f === "ms" || cols[k].f === "mb" || cols[k].f === "rate" ? -1 : 1);
      sortCol = c;
      order.sort(function (a, b) {
        var x = G[a][c], y = G[b][c];
        if (x == null || y == null) return x == null ? (y == null ? a - b : 1) : -1;
        return x < y ? -sortDir : x > y ? sortDir : a - b;
      });
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
      page = 0;
      render();
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
  });

  function showRow(i) {
    var prev = document.querySelector(".mark.hl");
    if (prev) prev.classList.remove("hl");
    lit = i;
    page = Math.floor(order.indexOf(i) / rows);
    render();
    var tr = document.getElementById("gc-" + i);
    if (tr) tr.scrollIntoView({ block: "center" });
    var m = document.querySelector('#chart-pause .mark[data-i="' + i + '"]');
    if (m) m.classList.add("hl");
  }

  function tipHtml(i) {
    var g = G[i], t = [];
    function row(k, v) { t.push("<tr><td>" + k + "</td><td>" + esc(v) + "</td></tr>"); }
    row("Generation", int(g[C.gen]) + " " + typeName(g[C.type]) + " (" + (g[C.label] || "") + ")");
    row("Reason", reason(g[C.reason]));
    row("Start", ms(g[C.start]) + " ms");
    row("Pause", ms(g[C.pause]) + " ms");
    row("GC time", ms(g[C.dur]) + " ms");
    row("Promoted", mb(g[C.prom]) + " MB");
    row("Heap before \u2192 after", mb(g[C.hb]) + " \u2192 " + mb(g[C.ha]) + " MB");
    if (g[C.hp] != null) row("Heap peak", mb(g[C.hp]) + " MB");
    if (g[C.rate] != null) row("Allocation rate (GC-observed)", rate(g[C.rate]) + " MB/s");
    if (g[C.alloc] != null) row("AllocationTick since the last GC", mb(g[C.alloc]) + " MB");
    for (var k = 0; k < 5; k++) {
      var b = g[C["b" + k]], a = g[C["a" + k]];
      if (b != null || a != null) row(genName[k] + " before \u2192 after", mb(b) + " \u2192 " + mb(a) + " MB");
    }
    if (g[C.heaps] != null) row("Heaps", int(g[C.heaps]));
    if (g[C.datas] != null) row("DATAS heap count", int(g[C.datas]));
    if (g[C.pid]) row("Process", int(g[C.pid]));
    var n = notes(g);
    if (n) row("Notes", n);
    return "<b>GC #" + g[C.n] + "</b><table>" + t.join("") + "</table>";
  }

  /* the GC a pointer is over: the mark under it, else the drawn GC nearest in time */
  function nearest(svg, e) {
    var i = e.target.getAttribute && e.target.getAttribute("data-i");
    if (i != null && e.target.classList.contains("mark")) return Number(i);
    var m = svg.getScreenCTM();
    if (!m) return -1;
    var pt = svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    var x = pt.matrixTransform(m.inverse()).x;
    if (x < D.sx[2] - 4 || x > D.sx[2] + D.sx[3] + 4) return -1;
    var t = D.sx[0] + (x - D.sx[2]) / D.sx[3] * (D.sx[1] - D.sx[0]);
    var list = D.charts[svg.getAttribute("data-chart")];
    var n = list ? list.length : G.length, lo = 0, hi = n - 1;
    if (n === 0) return -1;
    function at(k) { return list ? list[k] : k; }
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (G[at(mid)][C.start] < t) lo = mid + 1; else hi = mid;
    }
    if (lo > 0 && Math.abs(G[at(lo - 1)][C.start] - t) <= Math.abs(G[at(lo)][C.start] - t)) lo--;
    return at(lo);
  }
  function guideX(i) {
    return D.sx[2] + (G[i][C.start] - D.sx[0]) / (D.sx[1] - D.sx[0]) * D.sx[3];
  }

  Array.prototype.forEach.call(document.querySelectorAll("svg[data-chart]"), function (svg) {
    var name = svg.getAttribute("data-chart");
    if (!(name in D.charts)) return;
    var guide = svg.querySelector(".guide");
    svg.addEventListener("mousemove", function (e) {
      var i = nearest(svg, e);
      if (i < 0) { tip.hidden = true; if (guide) guide.setAttribute("visibility", "hidden"); return; }
      tip.innerHTML = tipHtml(i);
      tip.hidden = false;
      var w = tip.offsetWidth, h = tip.offsetHeight;
      var x = e.clientX + 14, y = e.clientY + 14;
      if (x + w > window.innerWidth - 4) x = Math.max(4, e.clientX - w - 14);
      if (y + h > window.innerHeight - 4) y = Math.max(4, e.clientY - h - 14);
      tip.style.left = x + "px";
      tip.style.top = y + "px";
      tip.setAttribute("data-i", i);
      if (guide) {
        var gx = guideX(i);
        guide.setAttribute("x1", gx);
        guide.setAttribute("x2", gx);
        guide.setAttribute("visibility", "visible");
      }
    });
    svg.addEventListener("mouseleave", function () {
      tip.hidden = true;
      if (guide) guide.setAttribute("visibility", "hidden");
    });
    svg.addEventListener("click", function (e) {
      var i = nearest(svg, e);
      if (i >= 0) showRow(i);
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll("button.key[data-s]"), function (b) {
    b.addEventListener("click", function () {
      var on = b.getAttribute("aria-pressed") !== "false";
      b.setAttribute("aria-pressed", on ? "false" : "true");
      var fig = b.closest("figure");
      Array.prototype.forEach.call(fig.querySelectorAll('[data-s="' + b.getAttribute("data-s") + '"]'), function (el) {
        if (el !== b) el.classList.toggle("off", on);
      });
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll("a.gclink[data-n]"), function (a) {
    a.addEventListener("click", function (e) {
      var n = Number(a.getAttribute("data-n"));
      for (var i = 0; i < G.length; i++) {
        if (G[i][C.n] === n && G[i][C.pause] != null) { e.preventDefault(); showRow(i); return; }
      }
    });
  });

  render();
})();
