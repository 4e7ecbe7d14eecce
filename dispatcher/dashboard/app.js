// muster's status dashboard (docs/dashboard.md). Plain JavaScript, no build step, no library.
// It loads each view once, then follows GET /api/v1/events: every event marks what it touches
// as dirty and a short timer refetches only that (one queue, the current bindings page, the
// cluster list), so a busy fleet costs a few small requests per second, never whole lists.
"use strict";

const $ = (sel) => document.querySelector(sel);
const TOKEN_KEY = "muster.token";
const PAGE = 50; // bindings per page
// Coalescing windows. The API allows a client 50 requests a second (burst 100): a busy fleet
// must stay well below that, whatever it does.
const QUEUE_FLUSH_MS = 500;
const QUEUE_LIST_EVERY_MS = 2000; // a whole-list refetch at most this often
const BINDINGS_FLUSH_MS = 1000;
const CLUSTERS_FLUSH_MS = 2000;
const STATS_FLUSH_MS = 5000;
const QUEUE_REFETCH_ALL = 8; // more dirty queues than this: one list request instead
const EVENTS_KEPT = 200;

const state = {
  token: sessionStorage.getItem(TOKEN_KEY) || "",
  queues: new Map(), // name -> queue object from the API
  rows: new Map(), // name -> <tr>
  expanded: new Set(),
  resource: "", // the resource the queue bars show; "" = every one
  dirtyQueues: new Set(),
  refetchAllQueues: false,
  queueListAt: 0, // when the last whole-list refetch ran
  changedQueues: new Set(), // named by "queue" events: refetched apart, without delay
  lastId: "",
  es: null,
  bindingPage: { stack: [], cont: "", next: "" },
  selected: "", // "ns/name" in the detail pane
  timers: {},
};

// ---- quantities ----------------------------------------------------------------------------

const SUFFIX = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

// A Kubernetes quantity string as a number (NaN when it is not one).
function qty(s) {
  if (typeof s === "number") return s;
  if (typeof s !== "string") return NaN;
  const m = /^([+-]?[0-9.]+)(?:[eE]([+-]?[0-9]+))?(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(s.trim());
  if (!m) return NaN;
  return parseFloat(m[1]) * (m[2] ? 10 ** parseInt(m[2], 10) : 1) * SUFFIX[m[3] || ""];
}

function isBytes(res) { return res === "memory" || res.endsWith("storage"); }

function fmt(n, res) {
  if (!isFinite(n)) return "∞";
  if (isBytes(res || "")) {
    const units = ["", "Ki", "Mi", "Gi", "Ti", "Pi"];
    let i = 0;
    while (Math.abs(n) >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (Math.round(n * 10) / 10) + units[i];
  }
  if (Math.abs(n) >= 1e4) return Math.round(n).toLocaleString();
  return String(Math.round(n * 100) / 100);
}

// GPU-like resources first, then cpu and memory, then the rest by name.
function resOrder(a, b) {
  const rank = (r) => (/gpu/i.test(r) ? 0 : r === "cpu" ? 1 : r === "memory" ? 2 : 3);
  return rank(a) - rank(b) || a.localeCompare(b);
}

function shortRes(r) { return r.replace(/^.*\//, ""); }

function reqText(map) {
  if (!map) return "";
  return Object.keys(map).sort(resOrder).map((r) => `${shortRes(r)} ${map[r]}`).join(", ");
}

function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m " + (s % 60) + "s";
  return Math.floor(s / 3600) + "h " + Math.floor((s % 3600) / 60) + "m";
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}

// ---- the API -------------------------------------------------------------------------------

class AuthError extends Error {}

async function api(path) {
  const headers = { Accept: "application/json" };
  if (state.token) headers.Authorization = "Bearer " + state.token;
  // no-cache, not no-store: an answer with an ETag is asked for again with If-None-Match, and
  // a 304 costs the server nothing (the queue list).
  const r = await fetch(path, { headers, cache: "no-cache" });
  if (r.status === 401) throw new AuthError("unauthorized");
  const body = await r.json().catch(() => null);
  if (!r.ok) {
    const e = new Error((body && body.message) || r.statusText);
    e.status = r.status;
    throw e;
  }
  return body;
}

// Every page of a list endpoint (queues: at most 1000 a page, so 1,000 queues is one request).
async function apiAll(path) {
  const out = [];
  let cont = "";
  for (let i = 0; i < 1000; i++) {
    const sep = path.includes("?") ? "&" : "?";
    const page = await api(path + sep + "limit=1000" + (cont ? "&continue=" + encodeURIComponent(cont) : ""));
    out.push(...(page.items || []));
    cont = page.metadata && page.metadata.continue;
    if (!cont) break;
  }
  return out;
}

function schedule(name, ms, fn) {
  if (state.timers[name]) return;
  state.timers[name] = setTimeout(() => { state.timers[name] = 0; run(fn); }, ms);
}

// Runs an async view update; a 401 asks for a token once, other errors show on the status line.
async function run(fn) {
  try { await fn(); } catch (e) {
    if (e instanceof AuthError) askToken("That token was not accepted.");
    else if (e.status === 429) { /* rate limited: the next event asks again */ }
    else setConn("down", e.message);
  }
}

// ---- sign-in -------------------------------------------------------------------------------

let asking = false;
function askToken(msg) {
  if (state.es) { state.es.close(); state.es = null; }
  setConn("down", "signed out");
  const d = $("#login");
  $("#login-error").textContent = state.token ? msg || "" : "";
  if (!asking) {
    asking = true;
    if (!d.open) d.showModal();
    $("#login-token").focus();
  }
}

function setupLogin() {
  $("#login-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    state.token = $("#login-token").value.trim();
    sessionStorage.setItem(TOKEN_KEY, state.token);
    $("#login-token").value = "";
    asking = false;
    $("#login").close();
    start();
  });
  $("#login").addEventListener("cancel", (ev) => ev.preventDefault()); // nothing works without it
  $("#signout").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    state.token = "";
    location.reload();
  });
}

function setConn(cls, text) {
  const c = $("#conn");
  c.className = "conn " + cls;
  c.querySelector(".conn-text").textContent = text;
}

// ---- the live feed -------------------------------------------------------------------------

function connect() {
  if (state.es) state.es.close();
  const q = [];
  if (state.token) q.push("access_token=" + encodeURIComponent(state.token));
  if (state.lastId) q.push("since=" + encodeURIComponent(state.lastId));
  const es = new EventSource("/api/v1/events" + (q.length ? "?" + q.join("&") : ""));
  state.es = es;
  es.onopen = () => setConn("live", "live");
  es.onerror = () => {
    if (es.readyState === EventSource.CONNECTING) {
      setConn("down", "reconnecting"); // the browser retries by itself (musterd restarting)
      return;
    }
    // Closed for good: a 401 (token gone), a 503 (too many streams, shutting down) or a network
    // error the browser gave up on. Ask the API which, every 3 s, until it answers.
    setConn("down", "disconnected");
    const retry = () => setTimeout(async () => {
      try {
        await api("/api/v1/queues?limit=1");
        connect();
      } catch (e) {
        if (e instanceof AuthError) askToken("That token was not accepted.");
        else { setConn("down", "unreachable, retrying"); retry(); }
      }
    }, 3000);
    retry();
  };
  const track = (fn) => (ev) => {
    if (ev.lastEventId) state.lastId = ev.lastEventId;
    let data = {};
    try { data = JSON.parse(ev.data); } catch (_) { /* a malformed event is skipped */ }
    fn(data, ev);
  };
  es.addEventListener("reset", track(() => run(loadAll)));
  es.addEventListener("binding", track(onBinding));
  es.addEventListener("queue", track(onQueue));
  es.addEventListener("cluster", track((d) => { addEvent("cluster", d, `${d.name} changed`); dirtyClusters(); }));
  es.addEventListener("notice", track((d) => addEvent("notice", d, d.message || "", d.level)));
}

function onBinding(d) {
  const name = `${d.namespace}/${d.name}`;
  const label = d.state === "rolledback" ? "rolled back" : d.state;
  // An eviction (--reclaim on) says it all in its reason: "preempted to reclaim for Q (binding
  // B)", or "preempted by a priority P gang of its queue Q (binding B)".
  const text = d.state === "preempted" && d.reason
    ? `${name} (${d.queue}) ${d.reason}`
    : `${name} ${label} (${d.queue})${d.reason ? ": " + d.reason : ""}`;
  addEvent(d.state, d, text, d.state);
  markQueue(d.queue);
  // The row on screen changes at once; the page itself is refetched shortly after.
  const tr = document.querySelector(`#binding-table tr[data-name="${CSS.escape(name)}"]`);
  if (tr) setStateCell(tr.querySelector("td.st"), d.state);
  schedule("bindings", BINDINGS_FLUSH_MS, loadBindings);
  if (state.selected === name) schedule("detail", 300, () => loadDetail(name));
  if (d.state !== "pending") dirtyClusters();
  schedule("stats", STATS_FLUSH_MS, loadStats);
}

function onQueue(d) {
  addEvent("queue", d, `${d.name} ${d.deleted ? "deleted" : "changed"}`);
  if (d.deleted) {
    state.queues.delete(d.name);
    renderTree();
    return;
  }
  // An operator's change (create, spec, state) shows at once, apart from the usage refetches,
  // which may be waiting for their whole-list window. Many at once (a dispatch loop that
  // reports usage per queue) go the usage way.
  if (state.changedQueues.size >= QUEUE_REFETCH_ALL) { markQueue(d.name); return; }
  state.changedQueues.add(d.name);
  schedule("queue-changes", 200, async () => {
    const names = [...state.changedQueues];
    state.changedQueues.clear();
    await refetchQueues(names);
  });
}

// A queue and its ancestors (their usage is the sum of their children's) need a refetch.
function markQueue(name) {
  for (let n = name, i = 0; n && i < 64; i++) { // root too: it is a queue like the others
    state.dirtyQueues.add(n);
    const q = state.queues.get(n);
    n = q ? q.parent : null;
  }
  if (state.dirtyQueues.size > QUEUE_REFETCH_ALL) state.refetchAllQueues = true;
  const wait = Math.max(QUEUE_FLUSH_MS, state.queueListAt + QUEUE_LIST_EVERY_MS - Date.now());
  schedule("queues", state.refetchAllQueues ? wait : QUEUE_FLUSH_MS, flushQueues);
}

async function flushQueues() {
  const names = [...state.dirtyQueues];
  state.dirtyQueues.clear();
  if (state.refetchAllQueues) {
    state.refetchAllQueues = false;
    state.queueListAt = Date.now();
    await loadQueues();
    return;
  }
  await refetchQueues(names);
}

// Refetches the named queues one by one and redraws what changed.
async function refetchQueues(names) {
  let structural = false;
  await Promise.all(names.map(async (n) => {
    try {
      const q = await api("/api/v1/queues/" + encodeURIComponent(n));
      if (!state.queues.has(n) || state.queues.get(n).parent !== q.parent) structural = true;
      state.queues.set(n, q);
    } catch (e) {
      if (e.status === 404) { state.queues.delete(n); structural = true; } else throw e;
    }
  }));
  if (structural) renderTree();
  else for (const n of names) updateRow(n, true);
  renderTotals();
}

function dirtyClusters() { schedule("clusters", CLUSTERS_FLUSH_MS, loadClusters); }

// ---- queues --------------------------------------------------------------------------------

async function loadQueues() {
  const items = await apiAll("/api/v1/queues");
  state.queues = new Map(items.map((q) => [q.name, q]));
  if (!state.expanded.size) {
    // Top two levels open at first; the rest on demand (1,000 queues stay a short page).
    for (const q of items) if (!q.parent || q.parent === "root") state.expanded.add(q.name);
  }
  fillResourceSelect();
  renderTree();
  renderTotals();
  const dl = $("#queue-names");
  dl.replaceChildren(...[...state.queues.keys()].sort().map((n) => el("option", { value: n })));
}

function children() {
  const kids = new Map();
  for (const q of state.queues.values()) {
    const p = state.queues.has(q.parent) ? q.parent : "";
    if (!kids.has(p)) kids.set(p, []);
    kids.get(p).push(q.name);
  }
  for (const v of kids.values()) v.sort();
  return kids;
}

function fillResourceSelect() {
  const seen = new Set();
  for (const q of state.queues.values())
    for (const m of [q.guarantee, q.deserved, q.capability, q.status && q.status.allocated])
      for (const r of Object.keys(m || {})) seen.add(r);
  const sel = $("#queue-res");
  const cur = sel.value || state.resource;
  const opts = [...seen].sort(resOrder);
  sel.replaceChildren(el("option", { value: "", text: "all" }), ...opts.map((r) => el("option", { value: r, text: r })));
  // GPU first: the scarce resource is the one an operator looks at.
  sel.value = cur || opts.find((r) => /gpu/i.test(r)) || "";
  state.resource = sel.value;
}

function renderTree() {
  const kids = children();
  const body = $("#queue-tree tbody");
  const frag = document.createDocumentFragment();
  state.rows = new Map();
  const walk = (name, depth) => {
    const tr = buildRow(name, depth, (kids.get(name) || []).length > 0);
    frag.append(tr);
    state.rows.set(name, tr);
    if (state.expanded.has(name)) for (const k of kids.get(name) || []) walk(k, depth + 1);
  };
  for (const top of kids.get("") || []) walk(top, 0);
  body.replaceChildren(frag);
  if (!state.queues.size) body.append(el("tr", null, el("td", { colspan: 6, class: "empty", text: "no queues" })));
  $("#queues-count").textContent = `${state.queues.size} queues`;
}

function buildRow(name, depth, hasKids) {
  const tr = el("tr", { "data-queue": name });
  const nameTd = el("td", { class: "name" });
  nameTd.style.paddingLeft = 6 + depth * 16 + "px";
  if (hasKids) {
    const open = state.expanded.has(name);
    const b = el("button", { type: "button", class: "toggle", "aria-expanded": String(open),
      "aria-label": (open ? "Collapse " : "Expand ") + name, text: open ? "▾" : "▸" });
    b.addEventListener("click", () => {
      if (state.expanded.has(name)) state.expanded.delete(name); else state.expanded.add(name);
      renderTree();
      const again = state.rows.get(name);
      if (again) again.querySelector("button.toggle").focus();
    });
    nameTd.append(b);
  } else {
    nameTd.append(el("span", { class: "leafpad" }));
  }
  const link = el("button", { type: "button", class: "link qname", text: name, title: "Show its bindings" });
  link.addEventListener("click", () => {
    $("#f-queue").value = name;
    resetPaging();
    run(loadBindings);
    $("#bindings").scrollIntoView({ block: "start" });
  });
  nameTd.append(link);
  tr.append(nameTd, el("td", { class: "st" }), el("td", { class: "usage" }),
    el("td", { class: "num pend" }), el("td", { class: "num adm" }), el("td", { class: "num share" }));
  fillRow(tr, state.queues.get(name));
  return tr;
}

function updateRow(name, flash) {
  const tr = state.rows.get(name);
  const q = state.queues.get(name);
  if (!tr || !q) return;
  fillRow(tr, q);
  if (flash) {
    tr.classList.remove("flash");
    void tr.offsetWidth; // restart the animation
    tr.classList.add("flash");
  }
}

function fillRow(tr, q) {
  if (!q) return;
  const st = q.status || {};
  const stateTd = tr.querySelector("td.st");
  stateTd.replaceChildren(el("span", { class: "state " + q.state, text: q.state }));
  tr.querySelector("td.pend").textContent = st.pending ?? "";
  tr.querySelector("td.adm").textContent = st.admitted ?? "";
  tr.querySelector("td.share").textContent = st.share === null ? "∞" : st.share === undefined ? "" : (Math.round(st.share * 100) + "%");
  const alloc = st.allocated || {};
  const res = new Set([...Object.keys(q.guarantee || {}), ...Object.keys(q.deserved || {}),
    ...Object.keys(q.capability || {}), ...Object.keys(alloc)]);
  let list = [...res].sort(resOrder);
  if (state.resource) list = list.filter((r) => r === state.resource);
  let borrowing = false;
  const bars = el("div", { class: "bars" });
  for (const r of list) {
    const a = qty(alloc[r] || "0"), g = qty((q.guarantee || {})[r] || "0"), d = qty((q.deserved || {})[r] || "0");
    const c = (q.capability || {})[r] !== undefined ? qty(q.capability[r]) : Infinity;
    // Borrowing: above deserved, lent by siblings. root has no one to borrow from.
    const borrow = !!q.parent && (a > d || qty((st.borrowed || {})[r] || "0") > 0);
    borrowing = borrowing || borrow;
    const rsv = qty((st.reserved || {})[r] || "0");
    const scale = Math.max(isFinite(c) ? c : 0, d, g, a + rsv) * (isFinite(c) ? 1 : 1.15) || 1;
    const track = el("div", { class: "track", role: "img",
      "aria-label": `${r}: ${fmt(a, r)} allocated, ${fmt(rsv, r)} reserved, guarantee ${fmt(g, r)}, deserved ${fmt(d, r)}, capability ${fmt(c, r)}` });
    const fill = el("div", { class: "fill" + (borrow ? " borrow" : "") });
    fill.style.width = Math.min(100, (a / scale) * 100) + "%";
    track.append(fill);
    if (rsv > 0) { // muster's in-flight reservations, after what is allocated
      const f = el("div", { class: "fill reserved" });
      f.style.left = Math.min(100, (a / scale) * 100) + "%";
      f.style.width = Math.min(100, (rsv / scale) * 100) + "%";
      track.append(f);
    }
    for (const [cls, v] of [["g", g], ["d", d], ["c", c]]) {
      if (!isFinite(v) || v <= 0) continue;
      const m = el("div", { class: "marker " + cls });
      m.style.left = "calc(" + Math.min(100, (v / scale) * 100) + "% - 1px)";
      track.append(m);
    }
    bars.append(el("div", { class: "bar" },
      el("span", { class: "res", text: shortRes(r), title: r }), track,
      el("span", { class: "val", text: `${fmt(a, r)} / ${fmt(d, r)} (g ${fmt(g, r)}, cap ${fmt(c, r)})` })));
  }
  tr.querySelector("td.usage").replaceChildren(bars);
  tr.classList.toggle("borrowing", borrowing);
  fillReclaim(tr, q, st);
  fillTenants(tr, q);
}

// Tenancy in the tree: which namespaces the queue admits (its own namespaceSelector, as kubectl
// prints a selector), with its namespace limits and Kueue LocalQueues in the tooltip.
function selectorText(sel) {
  const parts = Object.entries(sel.matchLabels || {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel.matchExpressions || []) {
    if (e.operator === "Exists") parts.push(e.key);
    else if (e.operator === "DoesNotExist") parts.push("!" + e.key);
    else parts.push(`${e.key} ${e.operator === "In" ? "in" : "notin"} (${(e.values || []).join(",")})`);
  }
  return parts.join(",") || "all namespaces";
}

function fillTenants(tr, q) {
  const nameTd = tr.querySelector("td.name");
  let mark = nameTd.querySelector(".tenants");
  if (!q.namespaceSelector && !q.namespaceLimits && !q.localQueues) {
    if (mark) mark.remove();
    return;
  }
  if (!mark) { mark = el("span", { class: "tenants" }); nameTd.append(mark); }
  mark.textContent = q.namespaceSelector ? "ns: " + selectorText(q.namespaceSelector) : "tenants";
  const lim = q.namespaceLimits || {};
  const limText = [lim.gangs ? `${lim.gangs} gangs` : "",
    ...Object.entries(lim.resources || {}).map(([r, v]) => `${v} ${r}`)].filter(Boolean).join(", ");
  mark.title = [q.namespaceSelector ? "admits namespaces " + selectorText(q.namespaceSelector)
    : "admits the namespaces its parent admits",
  limText ? "each namespace at most " + limText : "",
  q.localQueues ? "Kueue LocalQueues " + q.localQueues.join(", ") : ""].filter(Boolean).join("; ");
}

// Reclaim in the tree: a "lending" mark on a queue whose unused guarantee the engine lends to
// others (status.lent, musterd --reclaim on), and the preemptions it made and suffered in the
// name's tooltip (0 until eviction lands).
function fillReclaim(tr, q, st) {
  const lent = Object.entries(st.lent || {}).filter(([, v]) => qty(v) > 0);
  const nameTd = tr.querySelector("td.name");
  let mark = nameTd.querySelector(".lend");
  tr.classList.toggle("lending", lent.length > 0);
  if (lent.length) {
    if (!mark) { mark = el("span", { class: "lend" }); nameTd.append(mark); }
    mark.textContent = "lending";
    mark.title = "lends " + lent.map(([r, v]) => `${v} ${r}`).join(", ") +
      " of its unused guarantee; reclaim takes it back";
  } else if (mark) {
    mark.remove();
  }
  const p = st.preemptions || {};
  const link = nameTd.querySelector(".qname");
  if (link) link.title = `Show its bindings (${q.reclaimable === false ? "not reclaimable; " : ""}` +
    `preemptions made ${p.made || 0}, suffered ${p.suffered || 0})`;
}

function renderTotals() {
  let pending = 0, admitted = 0;
  const kids = children(); // leaves only: an inner queue's counts are its children's

  for (const [name, q] of state.queues) {
    if ((kids.get(name) || []).length) continue;
    pending += (q.status && q.status.pending) || 0;
    admitted += (q.status && q.status.admitted) || 0;
  }
  $("#totals").replaceChildren(
    el("span", null, "queues ", el("b", { text: String(state.queues.size) })),
    el("span", null, "pending ", el("b", { text: pending.toLocaleString() })),
    el("span", null, "admitted ", el("b", { text: admitted.toLocaleString() })));
}

// ---- bindings ------------------------------------------------------------------------------

function resetPaging() { state.bindingPage = { stack: [], cont: "", next: "" }; }

function bindingQuery() {
  const p = new URLSearchParams();
  const q = $("#f-queue").value.trim(), s = $("#f-state").value, n = $("#f-name").value.trim();
  const ns = $("#f-namespace").value.trim();
  if (q) p.set("queue", q);
  // only a whole namespace name is sent (the API refuses anything else)
  if (/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(ns)) p.set("namespace", ns);
  if (s) p.set("state", s);
  if (n) p.set("name", n);
  p.set("limit", String(PAGE));
  if (state.bindingPage.cont) p.set("continue", state.bindingPage.cont);
  return p.toString();
}

async function loadBindings() {
  let page;
  try {
    page = await api("/api/v1/bindings?" + bindingQuery());
  } catch (e) {
    if (e.status === 400 && state.bindingPage.cont) { resetPaging(); return loadBindings(); }
    throw e;
  }
  state.bindingPage.next = (page.metadata && page.metadata.continue) || "";
  const body = $("#binding-table tbody");
  // A live refresh replaces the rows; a keyboard user's focus must not fall to <body> with them.
  const focused = body.contains(document.activeElement) ? document.activeElement.dataset.name : undefined;
  const frag = document.createDocumentFragment();
  for (const b of page.items || []) frag.append(bindingRow(b));
  body.replaceChildren(frag);
  if (focused) {
    const again = body.querySelector(`tr[data-name="${CSS.escape(focused)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  if (!(page.items || []).length) body.append(el("tr", null, el("td", { colspan: 7, class: "empty", text: "no bindings match" })));
  const n = state.bindingPage.stack.length;
  $("#page-info").textContent = `page ${n + 1}`;
  $("#page-prev").disabled = n === 0;
  $("#page-first").disabled = n === 0;
  $("#page-next").disabled = !state.bindingPage.next;
}

function bindingRow(b) {
  const name = `${b.namespace}/${b.name}`;
  const tr = el("tr", { tabindex: "0", "data-name": name, "aria-label": `binding ${name}` });
  if (state.selected === name) tr.classList.add("selected");
  const st = el("td", { class: "st" });
  setStateCell(st, b.state);
  tr.append(el("td", { class: "bname", text: name }), el("td", { text: b.queue }), st,
    el("td", { class: "req", text: reqText(b.request) }),
    el("td", { class: "num wait", "data-since": b.createdAtMs, text: ago(b.createdAtMs) }),
    el("td", { class: "num", text: b.position ? String(b.position) : "" }),
    el("td", { class: "reason", text: b.reason || "" }));
  const open = () => { state.selected = name; run(() => loadDetail(name)); markSelected(); };
  tr.addEventListener("click", open);
  tr.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); open(); }
    else if (ev.key === "ArrowDown" && tr.nextElementSibling) { ev.preventDefault(); tr.nextElementSibling.focus(); }
    else if (ev.key === "ArrowUp" && tr.previousElementSibling) { ev.preventDefault(); tr.previousElementSibling.focus(); }
  });
  return tr;
}

function setStateCell(td, s) {
  if (!td) return;
  td.replaceChildren(el("span", { class: "state " + s, text: s === "rolledback" ? "rolled back" : s }));
  td.dataset.state = s;
}

function markSelected() {
  for (const tr of document.querySelectorAll("#binding-table tr.selected")) tr.classList.remove("selected");
  const tr = document.querySelector(`#binding-table tr[data-name="${CSS.escape(state.selected)}"]`);
  if (tr) tr.classList.add("selected");
}

function setupBindings() {
  let t = 0;
  const refilter = () => { clearTimeout(t); t = setTimeout(() => { resetPaging(); run(loadBindings); }, 250); };
  $("#f-queue").addEventListener("input", refilter);
  $("#f-name").addEventListener("input", refilter);
  $("#f-namespace").addEventListener("input", refilter);
  $("#f-state").addEventListener("change", refilter);
  $("#binding-filters").addEventListener("submit", (ev) => { ev.preventDefault(); refilter(); });
  $("#page-next").addEventListener("click", () => {
    if (!state.bindingPage.next) return;
    state.bindingPage.stack.push(state.bindingPage.cont);
    state.bindingPage.cont = state.bindingPage.next;
    run(loadBindings);
  });
  $("#page-prev").addEventListener("click", () => {
    if (!state.bindingPage.stack.length) return;
    state.bindingPage.cont = state.bindingPage.stack.pop();
    run(loadBindings);
  });
  $("#page-first").addEventListener("click", () => { resetPaging(); run(loadBindings); });
  $("#detail-close").addEventListener("click", closeDetail);
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && !$("#detail").hidden) closeDetail(); });
  // Waiting times tick without a request.
  setInterval(() => {
    for (const td of document.querySelectorAll("#binding-table td.wait")) td.textContent = ago(+td.dataset.since);
  }, 1000);
}

function closeDetail() {
  const name = state.selected;
  state.selected = "";
  $("#detail").hidden = true;
  markSelected();
  const tr = document.querySelector(`#binding-table tr[data-name="${CSS.escape(name)}"]`);
  if (tr) tr.focus();
}

async function loadDetail(name) {
  const [ns, n] = name.split("/");
  let b;
  try {
    b = await api(`/api/v1/bindings/${encodeURIComponent(ns)}/${encodeURIComponent(n)}`);
  } catch (e) {
    if (e.status === 404) b = null; else throw e;
  }
  const box = $("#detail-body");
  $("#detail-h").textContent = name;
  if (!b) {
    box.replaceChildren(el("p", { class: "empty", text: "muster has no record of it" }));
  } else {
    const dl = el("dl", { id: "detail-fields" });
    const add = (k, v) => { if (v !== undefined && v !== "") dl.append(el("dt", { text: k }), el("dd", { text: String(v) })); };
    const st = el("dd", { class: "detail-state" });
    setStateCell(st, b.state);
    dl.append(el("dt", { text: "state" }), st);
    add("queue", b.queue);
    add("request", reqText(b.request));
    add("priority", b.priority);
    add("position", b.position);
    add("waiting", b.state === "pending" ? ago(b.createdAtMs) : "");
    add("reason", b.reason);
    add("clusters", (b.clusters || []).map((c) => `${c.name} ×${c.replicas}`).join(", "));
    add("created", new Date(b.createdAtMs).toLocaleString());
    if (b.admittedAtMs) add("admitted", new Date(b.admittedAtMs).toLocaleString());
    const hist = el("table", { class: "list" },
      el("thead", null, el("tr", null, ...["#", "state", "queue", "updated", "reason"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", null, ...(b.history || []).slice().reverse().map((h) => {
        const s = el("td");
        setStateCell(s, h.state);
        return el("tr", null, el("td", { text: String(h.id) }), s, el("td", { text: h.queue }),
          el("td", { text: new Date(h.updatedAtMs).toLocaleTimeString() }), el("td", { class: "reason", text: h.reason || "" }));
      })));
    box.replaceChildren(dl, el("h3", { text: "Decision history" }), hist);
  }
  const d = $("#detail");
  const wasHidden = d.hidden;
  d.hidden = false;
  if (wasHidden) d.focus();
}

// ---- clusters ------------------------------------------------------------------------------

async function loadClusters() {
  let items;
  try {
    items = await apiAll("/api/v1/clusters");
  } catch (e) {
    if (e.status === 501) { $("#clusters-note").textContent = "not served by this musterd"; return; }
    throw e;
  }
  const list = $("#cluster-list");
  list.replaceChildren(...items.map(clusterCard));
  if (!items.length) list.append(el("p", { class: "empty", text: "no clusters" }));
  $("#clusters-note").textContent = `${items.filter((c) => c.ready).length} of ${items.length} Ready`;
}

function clusterCard(c) {
  const labels = Object.entries(c.labels || {}).map(([k, v]) => `${k}=${v}`).join(" ");
  const card = el("article", { class: "cluster", "data-cluster": c.name },
    el("h3", null, c.name, el("span", { class: "badge " + (c.ready ? "ready" : "notready"), text: c.ready ? "Ready" : "NotReady" }),
      el("span", { class: "labels", text: labels })));
  const cap = c.capacity || {};
  const bars = el("div", { class: "bars" });
  for (const r of Object.keys(cap).sort(resOrder).filter((r) => r !== "pods").slice(0, 3)) {
    const total = qty(cap[r]) || 1;
    const parts = [["allocated", "fill", (c.allocated || {})[r]], ["allocating", "fill allocating", (c.allocating || {})[r]],
      ["reserved", "fill reserved", (c.reserved || {})[r]]];
    const track = el("div", { class: "track" });
    let left = 0;
    const words = [];
    for (const [word, cls, v] of parts) {
      const n = qty(v || "0");
      if (!(n > 0)) continue;
      const f = el("div", { class: cls });
      f.style.left = (left / total) * 100 + "%";
      f.style.width = Math.min(100, (n / total) * 100) + "%";
      track.append(f);
      left += n;
      words.push(`${word} ${fmt(n, r)}`);
    }
    track.setAttribute("role", "img");
    track.setAttribute("aria-label", `${r}: capacity ${fmt(total, r)}; ${words.join(", ") || "nothing in use"}`);
    bars.append(el("div", { class: "bar" }, el("span", { class: "res", text: shortRes(r), title: r }), track,
      el("span", { class: "val", text: `free ${fmt(qty((c.free || {})[r] || "0"), r)} of ${fmt(total, r)}` })));
  }
  card.append(bars);
  if ((c.fits || []).length) {
    card.append(el("div", { class: "fits" }, "fits:",
      ...c.fits.map((f) => el("span", null, (f.label || reqText(f.size)) + " ×", el("b", { text: String(f.replicas) })))));
  }
  return card;
}

// ---- charts --------------------------------------------------------------------------------

async function loadStats() {
  let s;
  try {
    s = await api("/api/v1/stats");
  } catch (e) {
    if (e.status === 501) return;
    throw e;
  }
  const m = s.minutes || [];
  drawChart($("#chart-admissions"), m, [{ key: "admissions", color: "--alloc", bars: true }]);
  drawChart($("#chart-latency"), m, [{ key: "latencyP50Ms", color: "--guar" }, { key: "latencyP99Ms", color: "--borrow" }]);
  const total = m.reduce((a, x) => a + (x.admissions || 0), 0);
  const rb = m.reduce((a, x) => a + (x.rollbacks || 0), 0);
  $("#charts-summary").textContent = `${total.toLocaleString()} admitted, ${rb} rolled back`;
}

function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }

function drawChart(canvas, minutes, series) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || 480, h = canvas.clientHeight || 120;
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  const padL = 40, padB = 16, padT = 6, cw = w - padL - 4, ch = h - padB - padT;
  let max = 0;
  for (const x of minutes) for (const s of series) if (x[s.key] > max) max = x[s.key];
  max = max > 0 ? niceMax(max) : 1;
  g.font = "10px system-ui, sans-serif";
  g.fillStyle = cssVar("--muted");
  g.strokeStyle = cssVar("--line");
  g.lineWidth = 1;
  for (const f of [0, 0.5, 1]) {
    const y = padT + ch - f * ch + 0.5;
    g.beginPath(); g.moveTo(padL, y); g.lineTo(padL + cw, y); g.stroke();
    g.fillText(fmt(max * f), 2, y + 3);
  }
  g.fillText("-60 min", padL, h - 3);
  g.fillText("now", padL + cw - 18, h - 3);
  const n = minutes.length || 1, step = cw / n;
  for (const s of series) {
    g.fillStyle = g.strokeStyle = cssVar(s.color);
    if (s.bars) {
      minutes.forEach((x, i) => {
        const v = x[s.key] || 0, bh = (v / max) * ch;
        g.fillRect(padL + i * step + 1, padT + ch - bh, Math.max(1, step - 2), bh);
      });
    } else {
      g.lineWidth = 2;
      g.beginPath();
      let pen = false;
      minutes.forEach((x, i) => {
        const v = x[s.key];
        if (v === null || v === undefined) { pen = false; return; }
        const px = padL + i * step + step / 2, py = padT + ch - (Math.min(v, max) / max) * ch;
        if (pen) g.lineTo(px, py); else g.moveTo(px, py);
        pen = true;
        g.fillRect(px - 1.5, py - 1.5, 3, 3); // a lone minute is a dot, not nothing
      });
      g.stroke();
    }
  }
  canvas.setAttribute("aria-label", canvas.getAttribute("aria-label").replace(/ \(.*\)$/, "") +
    ` (latest: ${series.map((s) => `${s.key} ${fmt((minutes[minutes.length - 1] || {})[s.key] || 0)}`).join(", ")})`);
}

function niceMax(v) {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

// ---- recent events -------------------------------------------------------------------------

function addEvent(kind, d, text, cls) {
  const list = $("#event-list");
  const t = new Date(d.at || Date.now());
  const li = el("li", { class: cls || kind, "data-kind": kind },
    el("time", { datetime: t.toISOString(), text: t.toLocaleTimeString([], { hour12: false }) }),
    el("span", { class: "kind", text: kind === "rolledback" ? "rollback" : kind }),
    el("span", { class: "text", text }));
  list.prepend(li);
  while (list.childElementCount > EVENTS_KEPT) list.lastElementChild.remove();
}

// ---- start ---------------------------------------------------------------------------------

async function loadAll() {
  await Promise.all([loadQueues(), loadBindings(), loadClusters(), loadStats()]);
  if (state.selected) await loadDetail(state.selected);
}

async function start() {
  $("#signout").hidden = !state.token;
  try {
    await api("/api/v1/queues?limit=1"); // is a token needed, and is this one good?
  } catch (e) {
    if (e instanceof AuthError) { askToken(state.token ? "That token was not accepted." : ""); return; }
    setConn("down", e.message);
    setTimeout(start, 3000);
    return;
  }
  connect(); // its first event is a reset, which loads every view
}

document.addEventListener("DOMContentLoaded", () => {
  setupLogin();
  setupBindings();
  $("#queue-res").addEventListener("change", (ev) => {
    state.resource = ev.target.value;
    for (const n of state.rows.keys()) updateRow(n, false);
  });
  // Charts follow the clock too: a new minute starts even when nothing happens.
  setInterval(() => { if (state.es) run(loadStats); }, 60000);
  window.addEventListener("resize", () => schedule("stats", 200, loadStats));
  run(start);
});
