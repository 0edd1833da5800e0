// The options page: list bundles with their size and date; add, refresh and remove them.
import { listBundles, addBundle, refreshBundle, removeBundle, setBundleSettings, parseFilters, formatFilters } from "./bundles.js";

const list = document.getElementById("list");
const status = document.getElementById("status");
const usage = document.getElementById("usage");

const kb = (n) => (n === undefined ? "—" : `${(n / 1024).toFixed(0)} kB`);
const say = (text, isError = false) => {
  status.textContent = text;
  status.className = isError ? "error" : "";
};

async function render() {
  const rows = [];
  for (const b of await listBundles()) {
    const tr = document.createElement("tr");
    tr.dataset.id = b.id;
    const cells = [b.name, b.packaged ? "(inside the extension)" : b.base, b.documents ?? "—", b.packaged ? "—" : kb(b.bytes), b.updatedAt ? b.updatedAt.slice(0, 16).replace("T", " ") : "—"];
    for (const c of cells) {
      const td = document.createElement("td");
      td.textContent = String(c); // names and URLs are text, never markup
      tr.append(td);
    }
    // How the bundle weighs in the address bar's search of every bundle, and its filters.
    const weight = Object.assign(document.createElement("input"), { type: "number", min: "0.1", step: "0.1", value: String(b.weight), className: "weight" });
    weight.setAttribute("aria-label", `Weight of ${b.name}`);
    const filters = Object.assign(document.createElement("input"), { type: "text", value: formatFilters(b.filters), placeholder: "type=guide", className: "filters" });
    filters.setAttribute("aria-label", `Filters of ${b.name}`);
    const save = Object.assign(document.createElement("button"), { textContent: "Save", className: "save" });
    save.addEventListener("click", () => act(() => setBundleSettings(b.id, { weight: Number(weight.value), filters: parseFilters(filters.value) }), `Saved ${b.name}`));
    for (const control of [weight, filters]) {
      const td = document.createElement("td");
      td.append(control);
      tr.append(td);
    }
    const actions = document.createElement("td");
    actions.append(save, " ");
    if (!b.packaged) {
      const refresh = Object.assign(document.createElement("button"), { textContent: "Refresh", className: "refresh" });
      refresh.addEventListener("click", () => act(() => refreshBundle(b.id), `Refreshed ${b.name}`));
      const remove = Object.assign(document.createElement("button"), { textContent: "Remove", className: "remove" });
      remove.addEventListener("click", () => act(() => removeBundle(b.id), `Removed ${b.name}`));
      actions.append(refresh, " ", remove);
    }
    tr.append(actions);
    rows.push(tr);
  }
  list.replaceChildren(...rows);
  if (navigator.storage?.estimate) {
    const { usage: used } = await navigator.storage.estimate();
    usage.textContent = `Storage used by the extension: ${kb(used)}`;
    usage.dataset.bytes = String(used);
  }
}

async function act(fn, done) {
  say("Working…");
  try {
    await fn();
    say(done);
  } catch (e) {
    say(`${e.message ?? e}`, true);
  }
  await render();
}

document.getElementById("add").addEventListener("submit", async (e) => {
  e.preventDefault();
  const url = document.getElementById("url").value.trim();
  const name = document.getElementById("name").value.trim();
  // Sites beyond loopback need the user's permission for their origin (asked on this click).
  try {
    const origin = `${new URL(url).origin}/*`;
    if (!(await chrome.permissions.contains({ origins: [origin] }))) {
      const granted = await chrome.permissions.request({ origins: [origin] });
      if (!granted) return say(`Permission to read ${origin} was refused`, true);
    }
  } catch (err) {
    return say(`Not a valid URL: ${url}`, true);
  }
  await act(async () => {
    const entry = await addBundle(url, name);
    document.getElementById("url").value = "";
    document.getElementById("name").value = "";
    return entry;
  }, `Added ${name || url}`);
});

render();
