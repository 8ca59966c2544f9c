"use strict";
// The review page: renders the findings from the JSON block, filters them, and exports the
// accepted ones as a baseline file. Corpus text only ever goes through textContent and text
// nodes, never through an HTML parser, so nothing in a ruling can become markup or script.
//
// Two orders: most important first (errors, then warnings, then info; within each the
// surest first: the writer's `ranks`) and document order (by card or document, then line).
// Only the first PAGE findings of the current order and filters are built; more come as the
// reader scrolls, so a page with 50,000 findings opens and filters at once.
(function () {
  const PAGE = 100;
  const data = JSON.parse(document.getElementById("data").textContent);
  const findings = data.findings; // in document order
  findings.forEach((f, i) => {
    f.rank = data.ranks[i]; // each finding's place in the review order
  });
  const ranked = findings.slice().sort((a, b) => a.rank - b.rank);
  const rulings = data.rulings;
  const groups = new Map(data.groups.map((g) => [g.key, g]));
  const accepted = new Set(findings.filter((f) => f.baseline).map((f) => f.fp));
  const cards = new Map(); // fp -> its card, built the first time it is shown
  const texts = new Map(); // fp -> what a search matches, built at the first search
  let order = "priority";
  let visible = []; // the findings that pass the filters, in the current order
  let limit = PAGE;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function langName(code) {
    if (!code) return "no language";
    return data.languages[code] || code;
  }

  // Text with some ranges (UTF-16 offsets, sorted, not overlapping) wrapped in <mark>.
  function marked(text, marks, className) {
    const box = el("p", "text");
    let at = 0;
    for (const [start, end] of marks || []) {
      if (start > at) box.appendChild(document.createTextNode(text.slice(at, start)));
      box.appendChild(el("mark", className, text.slice(start, end)));
      at = end;
    }
    if (at < text.length) box.appendChild(document.createTextNode(text.slice(at)));
    return box;
  }

  function where(ruling) {
    return ruling.file + (ruling.line !== null && ruling.line !== undefined ? ":" + ruling.line : "");
  }

  function pane(label, ruling, marks, className, extra) {
    const box = el("div", "pane " + className);
    const head = el("div", "pane-head");
    head.appendChild(el("span", "pane-label", label));
    if (ruling) head.appendChild(el("span", "pane-where", where(ruling)));
    if (ruling && ruling.date) head.appendChild(el("span", "pane-date", ruling.date));
    if (extra) head.appendChild(el("span", "pane-extra", extra));
    box.appendChild(head);
    if (ruling) box.appendChild(marked(ruling.text, marks, className === "source" ? "want" : "bad"));
    else box.appendChild(el("p", "text absent", "No translation of this in the document."));
    return box;
  }

  function variantPane(variant, index) {
    const box = el("div", "pane variant" + (variant.preferred ? " preferred" : ""));
    const head = el("div", "pane-head");
    const name = variant.preferred ? "Preferred version" : "Version " + (index + 1);
    head.appendChild(el("span", "pane-label", name));
    if (variant.this) head.appendChild(el("span", "tag this", "this ruling"));
    const facts = [];
    if (variant.count !== null && variant.count !== undefined) facts.push("used " + variant.count + "×");
    if (variant.wrong_terms !== null && variant.wrong_terms !== undefined)
      facts.push(variant.wrong_terms + " wrong terms");
    head.appendChild(el("span", "pane-extra", facts.join(" · ")));
    box.appendChild(head);
    box.appendChild(marked(variant.text, variant.marks, variant.preferred ? "want" : "bad"));
    if (variant.rulings.length) box.appendChild(el("p", "pane-where small", variant.rulings.join(", ")));
    return box;
  }

  function findingCard(f) {
    const card = el("article", "finding " + f.severity);
    card.dataset.fp = f.fp;
    card.dataset.rank = String(f.rank);
    const head = el("div", "finding-head");
    head.appendChild(el("span", "sev " + f.severity, f.severity));
    const code = el("span", "code", f.code);
    if (data.rules[f.code]) code.title = data.rules[f.code];
    head.appendChild(code);
    head.appendChild(el("span", "tag", f.category));
    if (f.its) {
      const quality = el("span", "tag quality", "ITS " + f.its + (f.mqm ? " · MQM " + f.mqm.category + ", " + f.mqm.severity : ""));
      quality.title = "W3C ITS 2.0 issue type and MQM dimension and severity";
      head.appendChild(quality);
    }
    head.appendChild(el("span", "tag lang", langName(f.lang)));
    head.appendChild(el("span", "tag group-tag", f.group));
    const place = [f.file || "(no file)"];
    if (f.line !== null && f.line !== undefined) place[0] += ":" + f.line;
    if (f.section) place.push("§" + f.section);
    head.appendChild(el("span", "place", place.join(" · ")));
    const accept = el("label", "accept");
    const box = el("input");
    box.type = "checkbox";
    box.checked = accepted.has(f.fp);
    box.setAttribute("aria-label", "Accept finding " + f.fp);
    box.addEventListener("change", () => setAccepted(f.fp, box.checked));
    accept.appendChild(box);
    accept.appendChild(document.createTextNode(f.baseline ? " Accepted (baseline)" : " Accept"));
    head.appendChild(accept);
    card.appendChild(head);
    card.appendChild(el("p", "message", f.message));
    if (f.expected !== undefined || f.found !== undefined) {
      const ef = el("p", "expected-found");
      ef.appendChild(el("span", "ef-label", "expected"));
      ef.appendChild(el("span", "ef-want", f.expected));
      ef.appendChild(el("span", "ef-sep", "/"));
      ef.appendChild(el("span", "ef-label", "found"));
      ef.appendChild(el("span", "ef-bad", f.found));
      card.appendChild(ef);
    }
    const source = f.source ? rulings[f.source] : null;
    const target = f.ruling ? rulings[f.ruling] : null;
    const panes = el("div", "panes");
    const match = f.confidence < 1 ? Math.round(f.confidence * 100) + "% confidence" : null;
    if (source) panes.appendChild(pane(langName(source.lang) + " source", source, f.marks.source, "source", match));
    if (f.variants) {
      f.variants.forEach((v, i) => panes.appendChild(variantPane(v, i)));
    } else if (target) {
      const note = f.lang && target.lang && target.lang !== f.lang ? "text in " + langName(target.lang) : null;
      panes.appendChild(pane(langName(f.lang || target.lang) + " translation", target, f.marks.target, "target", note));
    } else if (source) {
      panes.appendChild(pane(langName(f.lang) + " translation", null, [], "target missing"));
    }
    if (panes.childNodes.length) {
      if (panes.childNodes.length === 1) panes.classList.add("single");
      card.appendChild(panes);
    }
    const more = el("details", "more");
    more.appendChild(el("summary", null, "Evidence · " + f.fp));
    const list = el("dl");
    for (const [key, value] of f.details) {
      list.appendChild(el("dt", null, key));
      list.appendChild(el("dd", null, value));
    }
    list.appendChild(el("dt", null, "fingerprint"));
    list.appendChild(el("dd", "mono", f.fp));
    if (data.rules[f.code]) {
      list.appendChild(el("dt", null, "about " + f.code));
      list.appendChild(el("dd", null, data.rules[f.code]));
    }
    more.appendChild(list);
    card.appendChild(more);
    if (accepted.has(f.fp)) card.classList.add("accepted");
    return card;
  }

  function cardOf(f) {
    let card = cards.get(f.fp);
    if (!card) {
      card = findingCard(f);
      cards.set(f.fp, card);
    }
    return card;
  }

  // Lower-cased text a search matches: the finding, its place and the texts it shows.
  function haystack(f) {
    let text = texts.get(f.fp);
    if (text !== undefined) return text;
    const parts = [f.code, f.category, f.severity, f.lang, langName(f.lang), f.file, f.card,
      f.section, f.group, f.message, f.fp, f.expected, f.found];
    for (const id of [f.source, f.ruling]) if (id && rulings[id]) parts.push(rulings[id].text);
    for (const v of f.variants || []) parts.push(v.text);
    for (const [key, value] of f.details) parts.push(key, value);
    text = parts.filter((p) => p !== null && p !== undefined).join("\n").toLowerCase();
    texts.set(f.fp, text);
    return text;
  }

  function count(n) {
    return n + (n === 1 ? " finding" : " findings");
  }

  function groupSection(key, n) {
    const group = groups.get(key) || { key: key, titles: [], files: [] };
    const section = el("section", "group");
    section.dataset.group = key;
    const head = el("div", "group-head");
    head.appendChild(el("h2", null, group.key));
    const sub = [...group.titles, ...group.files].join(" · ");
    if (sub) head.appendChild(el("p", "group-sub", sub));
    head.appendChild(el("span", "group-count", count(n)));
    section.appendChild(head);
    return section;
  }

  // The first `limit` visible findings: under one heading in the order of importance, or
  // under their card or document in document order.
  function renderList() {
    const root = document.getElementById("groups");
    root.textContent = "";
    root.classList.toggle("by-document", order === "document");
    const shown = visible.slice(0, limit);
    if (order === "priority" && shown.length) {
      const section = el("section", "group ranked");
      const head = el("div", "group-head");
      head.appendChild(el("h2", null, "Most important first"));
      head.appendChild(el("p", "group-sub", "errors, then warnings, then info; within each, the surest first"));
      head.appendChild(el("span", "group-count", count(visible.length)));
      section.appendChild(head);
      for (const f of shown) section.appendChild(cardOf(f));
      root.appendChild(section);
    } else if (shown.length) {
      const perGroup = new Map();
      for (const f of visible) perGroup.set(f.group, (perGroup.get(f.group) || 0) + 1);
      let section = null;
      for (const f of shown) {
        if (!section || section.dataset.group !== f.group) {
          section = groupSection(f.group, perGroup.get(f.group));
          root.appendChild(section);
        }
        section.appendChild(cardOf(f));
      }
    }
    const more = document.getElementById("more");
    const left = visible.length - shown.length;
    more.hidden = left <= 0;
    more.textContent = "Show " + Math.min(PAGE, left) + " more (" + left + " not shown yet)";
  }

  function showMore() {
    limit += PAGE;
    renderList();
  }

  const controls = {
    lang: document.getElementById("f-lang"),
    category: document.getElementById("f-category"),
    severity: document.getElementById("f-severity"),
    group: document.getElementById("f-group"),
    status: document.getElementById("f-status"),
    text: document.getElementById("f-text"),
  };

  function fill(select, choices) {
    select.appendChild(new Option("All", ""));
    for (const [value, label] of choices) select.appendChild(new Option(label, value));
  }

  function setUpFilters() {
    const langs = data.meta.langs.map((c) => [c, langName(c) + " (" + c + ")"]);
    if (findings.some((f) => !f.lang)) langs.push(["-", "no language"]);
    fill(controls.lang, langs);
    fill(controls.category, data.meta.categories.map((c) => [c, c]));
    fill(controls.severity, data.meta.severities.map((s) => [s, s]));
    fill(controls.group, data.groups.map((g) => [g.key, g.key]));
    fill(controls.status, [["open", "not accepted"], ["accepted", "accepted"]]);
    for (const control of Object.values(controls)) control.addEventListener("input", update);
    for (const [id, value] of [["order-priority", "priority"], ["order-document", "document"]]) {
      document.getElementById(id).addEventListener("click", () => {
        order = value;
        update();
      });
    }
    const more = document.getElementById("more");
    more.addEventListener("click", showMore);
    if ("IntersectionObserver" in window) {
      new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting) && !more.hidden) showMore();
      }, { rootMargin: "600px" }).observe(more);
    }
    document.getElementById("f-reset").addEventListener("click", () => {
      for (const control of Object.values(controls)) control.value = "";
      update();
    });
    document.getElementById("accept-shown").addEventListener("click", () => {
      for (const f of visible) setAccepted(f.fp, true, false);
      refresh();
    });
    document.getElementById("export").addEventListener("click", exportBaseline);
    document.getElementById("filters").hidden = false;
  }

  function passes(f, except) {
    const c = controls;
    if (except !== "lang" && c.lang.value && (f.lang || "-") !== c.lang.value) return false;
    if (except !== "category" && c.category.value && f.category !== c.category.value) return false;
    if (c.severity.value && f.severity !== c.severity.value) return false;
    if (c.group.value && f.group !== c.group.value) return false;
    if (c.status.value === "open" && accepted.has(f.fp)) return false;
    if (c.status.value === "accepted" && !accepted.has(f.fp)) return false;
    const words = c.text.value.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return true;
    const text = haystack(f);
    return words.every((w) => text.includes(w));
  }

  function update() {
    const perCategory = new Map();
    visible = [];
    for (const f of order === "priority" ? ranked : findings) {
      if (passes(f, "category")) {
        perCategory.set(f.category, (perCategory.get(f.category) || 0) + 1);
        if (!controls.category.value || f.category === controls.category.value) visible.push(f);
      }
    }
    limit = PAGE;
    renderList();
    for (const [id, value] of [["order-priority", "priority"], ["order-document", "document"]]) {
      document.getElementById(id).setAttribute("aria-pressed", String(order === value));
    }
    const total = findings.length;
    document.getElementById("shown").textContent =
      "Showing " + visible.length + " of " + count(total);
    document.getElementById("shown").dataset.count = String(visible.length);
    const chips = document.getElementById("chips");
    chips.textContent = "";
    for (const category of data.meta.categories) {
      const chip = el("button", "chip" + (controls.category.value === category ? " on" : ""));
      chip.type = "button";
      chip.dataset.category = category;
      chip.appendChild(el("span", null, category));
      chip.appendChild(el("b", null, perCategory.get(category) || 0));
      chip.addEventListener("click", () => {
        controls.category.value = controls.category.value === category ? "" : category;
        update();
      });
      chips.appendChild(chip);
    }
    showAccepted();
  }

  function setAccepted(fp, on, now = true) {
    if (on) accepted.add(fp);
    else accepted.delete(fp);
    const card = cards.get(fp);
    if (card) {
      card.classList.toggle("accepted", on);
      card.querySelector(".accept input").checked = on;
    }
    if (now) refresh();
  }

  function refresh() {
    if (controls.status.value) update();
    else showAccepted();
  }

  function showAccepted() {
    const n = accepted.size;
    document.getElementById("accepted-count").textContent =
      n + (n === 1 ? " finding accepted" : " findings accepted") + " for the baseline";
    document.getElementById("export").disabled = n === 0;
  }

  // The baseline format `rulings check --baseline FILE` reads (as --write-baseline writes it).
  function exportBaseline() {
    const entries = findings
      .filter((f) => accepted.has(f.fp))
      .map((f) => ({ fingerprint: f.fp, code: f.code, file: f.file, message: f.message }))
      .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
    const text = JSON.stringify({ accepted: entries }, null, 1) + "\n";
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const link = el("a");
    link.href = url;
    link.download = "baseline.json";
    link.hidden = true;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  // Long reports: let the browser skip laying out the findings that are off screen.
  if (findings.length > 300) document.body.classList.add("many");
  setUpFilters();
  update();
  document.documentElement.dataset.ready = "1";
})();
