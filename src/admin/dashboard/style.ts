/**
 * @module
 * The dashboard's stylesheet: system fonts, light and dark from `prefers-color-scheme`, one column on a phone.
 * Inline in the page (no file to serve, nothing from a CDN).
 */
export const DASHBOARD_CSS = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#d8dde3;--grid:#e7eaee;
--accent:#2563eb;--accent2:#d97706;--accent3:#7c3aed;--ok:#15803d;--bad:#b91c1c;--warn:#b45309}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--card:#171b21;--fg:#e6e9ee;--muted:#9aa4b1;--line:#2b323c;--grid:#232a33;
--accent:#60a5fa;--accent2:#fbbf24;--accent3:#c4b5fd;--ok:#4ade80;--bad:#f87171;--warn:#fbbf24}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.75rem 1rem;border-bottom:1px solid var(--line);background:var(--card)}
header h1{font-size:1.05rem;margin:0;flex:1 1 auto}
main{padding:1rem;max-width:1200px;margin:0 auto;display:grid;gap:1rem}
section.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1rem;min-width:0}
section.card h2{font-size:1rem;margin:0 0 .75rem}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,420px),1fr))}
.stats{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem}
.stat b{display:block;font-size:1.4rem;font-variant-numeric:tabular-nums}
.stat span{color:var(--muted);font-size:.85rem}
.badge{display:inline-block;padding:.15rem .55rem;border-radius:999px;border:1px solid var(--line);font-size:.85rem}
.badge[data-status=queueing]{color:var(--warn);border-color:var(--warn)}
.badge[data-status=suspended]{color:var(--bad);border-color:var(--bad)}
.badge[data-status=not_queueing]{color:var(--ok);border-color:var(--ok)}
button,select,input{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:.35rem .6rem}
button{cursor:pointer;background:var(--accent);border-color:var(--accent);color:#fff}
button.secondary{background:transparent;color:var(--fg);border-color:var(--line)}
button.danger{background:var(--bad);border-color:var(--bad)}
button:disabled{opacity:.6;cursor:progress}
label{display:block;font-size:.9rem}
form.settings{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));align-items:start}
form.settings .field input,form.settings .field select{width:100%;margin-top:.2rem}
.hint{color:var(--muted);font-size:.8rem}
.error{color:var(--bad);font-size:.85rem;min-height:1em;display:block}
.chart svg{width:100%;height:auto;display:block}
.chart .axis text,.chart .legend text{fill:var(--muted);font-size:13px}
.chart .gridline{stroke:var(--grid);stroke-width:1}
.chart .s0{stroke:var(--accent);fill:var(--accent)}.chart .s1{stroke:var(--accent2);fill:var(--accent2)}
.chart .s2{stroke:var(--accent3);fill:var(--accent3)}.chart .limit{stroke:var(--bad);fill:var(--bad)}
.chart svg polyline[class]{fill:none;stroke-width:2}.chart svg polyline.limit{stroke-dasharray:6 4;stroke-width:1.5}
.chart .empty{fill:var(--muted);font-size:15px}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.table-wrap{overflow-x:auto}
iframe.preview{width:100%;height:480px;border:1px solid var(--line);border-radius:8px;background:#fff}
#login{max-width:420px;margin:12vh auto;padding:1.5rem}
#login input{width:100%;margin:.4rem 0 .8rem}
.notice{color:var(--muted);font-size:.85rem}
[hidden]{display:none!important}
@media (max-width:560px){main{padding:.5rem}section.card{padding:.75rem}.grid{grid-template-columns:1fr}header h1{flex-basis:100%}}
`
