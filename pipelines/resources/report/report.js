"use strict";
// The review page: renders the findings from the JSON block, filters them, and exports the
// accepted ones as a baseline file. Corpus text only ever goes through textContent and text
// nodes, never through an HTML parser, so nothing in a ruling can become markup or script.
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const findings = data.findings;
  const rulings = data.rulings;
  const accepted = new Set(findings.filter((f) => f.baseline).map((f) => f.fp));
  const cards = new Map();
  const groupNodes = new Map();

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
    const head = el("div", "finding-head");
    head.appendChild(el("span", "sev " + f.severity, f.severity));
    const code = el("span", "code", f.code);
    if (data.rules[f.code]) code.title = data.rules[f.code];
    head.appendChild(code);
    head.appendChild(el("span", "tag", f.category));
    head.appendChild(el("span", "tag lang", langName(f.lang)));
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
    if (source) panes.appendChild(pane(langName(source.lang) + " source", source, f.marks.source, "source"));
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

  // Lower-cased text a search matches: the finding, its place and the texts it shows.
  function haystack(f) {
    const parts = [f.code, f.category, f.severity, f.lang, langName(f.lang), f.file, f.card,
      f.section, f.group, f.message, f.fp, f.expected, f.found];
    for (const id of [f.source, f.ruling]) if (id && rulings[id]) parts.push(rulings[id].text);
    for (const v of f.variants || []) parts.push(v.text);
    for (const [key, value] of f.details) parts.push(key, value);
    return parts.filter((p) => p !== null && p !== undefined).join("\n").toLowerCase();
  }

  function render() {
    const root = document.getElementById("groups");
    const byGroup = new Map();
    for (const f of findings) {
      if (!byGroup.has(f.group)) byGroup.set(f.group, []);
      byGroup.get(f.group).push(f);
    }
    for (const group of data.groups) {
      const section = el("section", "group");
      const head = el("div", "group-head");
      head.appendChild(el("h2", null, group.key));
      const sub = [...group.titles, ...group.files].join(" · ");
      if (sub) head.appendChild(el("p", "group-sub", sub));
      const count = el("span", "group-count");
      head.appendChild(count);
      section.appendChild(head);
      for (const f of byGroup.get(group.key) || []) {
        const card = findingCard(f);
        cards.set(f.fp, { finding: f, node: card, text: haystack(f) });
        section.appendChild(card);
      }
      groupNodes.set(group.key, { node: section, count: count });
      root.appendChild(section);
    }
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
    document.getElementById("f-reset").addEventListener("click", () => {
      for (const control of Object.values(controls)) control.value = "";
      update();
    });
    document.getElementById("accept-shown").addEventListener("click", () => {
      const shown = [...cards].filter(([, entry]) => !entry.node.hidden).map(([fp]) => fp);
      for (const fp of shown) setAccepted(fp, true, false);
      refresh();
    });
    document.getElementById("export").addEventListener("click", exportBaseline);
    document.getElementById("filters").hidden = false;
  }

  function passes(f, entry, except) {
    const c = controls;
    if (except !== "lang" && c.lang.value && (f.lang || "-") !== c.lang.value) return false;
    if (except !== "category" && c.category.value && f.category !== c.category.value) return false;
    if (c.severity.value && f.severity !== c.severity.value) return false;
    if (c.group.value && f.group !== c.group.value) return false;
    if (c.status.value === "open" && accepted.has(f.fp)) return false;
    if (c.status.value === "accepted" && !accepted.has(f.fp)) return false;
    const words = c.text.value.toLowerCase().split(/\s+/).filter(Boolean);
    return words.every((w) => entry.text.includes(w));
  }

  function update() {
    let shown = 0;
    const perGroup = new Map();
    const perCategory = new Map();
    for (const [, entry] of cards) {
      const f = entry.finding;
      const visible = passes(f, entry);
      entry.node.hidden = !visible;
      if (visible) {
        shown += 1;
        perGroup.set(f.group, (perGroup.get(f.group) || 0) + 1);
      }
      if (passes(f, entry, "category")) perCategory.set(f.category, (perCategory.get(f.category) || 0) + 1);
    }
    for (const [key, group] of groupNodes) {
      const n = perGroup.get(key) || 0;
      group.node.hidden = n === 0;
      group.count.textContent = n + (n === 1 ? " finding" : " findings");
    }
    const total = findings.length;
    document.getElementById("shown").textContent =
      "Showing " + shown + " of " + total + (total === 1 ? " finding" : " findings");
    document.getElementById("shown").dataset.count = String(shown);
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
    const entry = cards.get(fp);
    if (entry) {
      entry.node.classList.toggle("accepted", on);
      entry.node.querySelector(".accept input").checked = on;
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
  render();
  setUpFilters();
  update();
  document.documentElement.dataset.ready = "1";
})();
