// The organiser's desk pages (desk.html, organiser.html): the JSON API with the page's session cookie.
function fillZones(select) {
  const mine = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const zones = Intl.supportedValuesOf ? Intl.supportedValuesOf("timeZone") : [mine, "UTC"];
  for (const z of zones.includes(mine) ? zones : [mine, ...zones]) {
    const o = document.createElement("option");
    o.value = o.textContent = z;
    o.selected = z === mine;
    select.append(o);
  }
}
// "2026-12-05T19:30" in `zone` as an instant (ISO, UTC): the zone's own clock read back until it shows that time
function zonedIso(local, zone) {
  const [d, t] = local.split("T"), [y, mo, da] = d.split("-").map(Number), [h, mi] = t.split(":").map(Number);
  const want = Date.UTC(y, mo - 1, da, h, mi);
  const fmt = new Intl.DateTimeFormat("en-GB", {timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit",
                                                 day: "2-digit", hour: "2-digit", minute: "2-digit"});
  let guess = want;
  for (let i = 0; i < 3; i++) {
    const p = Object.fromEntries(fmt.formatToParts(new Date(guess)).map(x => [x.type, x.value]));
    guess += want - Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute);
  }
  return new Date(guess).toISOString();
}
function send(method, url, body) {
  return fetch(url, {method, credentials: "same-origin", cache: "no-store",
                     headers: body === undefined ? {} : {"Content-Type": "application/json"},
                     body: body === undefined ? undefined : JSON.stringify(body)});
}
async function problem(r) {
  try {
    const e = await r.json();
    return e.error || (e.detail ? JSON.stringify(e.detail) : `refused (${r.status})`);
  } catch (_) {
    return `refused (${r.status})`;
  }
}
const esc = s => String(s ?? "").replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                                                          "'": "&#39;"}[c]));
