/**
 * @module
 * The built-in queue page: one self-contained document (no external assets, so it renders while the
 * origin is overloaded), readable on a phone, accessible (landmarks, a live status region, reduced
 * motion honoured), refreshing itself through a meta refresh as well as the Refresh header.
 *
 * Times: the server writes them in UTC (it cannot know the reader's zone) and a few lines of inline script
 * rewrite every `<time datetime>` in the reader's own time zone and clock style (12 or 24 hours, from the
 * browser's locale), in the page's language. Without JavaScript the server's text stays.
 */
export const DEFAULT_TEMPLATE = `<!doctype html>
<html lang="{{t.lang}}" dir="{{dir}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
{{#refreshes}}<meta http-equiv="refresh" content="{{refreshIntervalSeconds}}">{{/refreshes}}
<meta name="robots" content="noindex">
<title>{{#isRejectQueue}}{{t.rejectHeading}}{{/isRejectQueue}}{{^isRejectQueue}}{{t.title}}{{/isRejectQueue}}</title>
<style>
:root{color-scheme:light dark;--fg:#1d2430;--muted:#5b6576;--bg:#f5f7fa;--card:#fff;--accent:#2456d6}
@media (prefers-color-scheme:dark){:root{--fg:#e8ecf2;--muted:#a7b0bf;--bg:#11151c;--card:#1a2029;--accent:#7aa2ff}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:var(--bg);color:var(--fg);
font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;padding:1rem}
main{background:var(--card);max-width:34rem;width:100%;border-radius:1rem;padding:2rem 1.5rem;
box-shadow:0 1px 3px rgba(0,0,0,.08),0 8px 24px rgba(0,0,0,.06);text-align:center}
h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 1rem}
p{margin:.5rem 0;color:var(--muted)}
.wait{margin:1.5rem 0;padding:1rem;border-radius:.75rem;background:color-mix(in srgb,var(--accent) 10%,transparent)}
.wait strong{display:block;font-size:1.75rem;color:var(--fg)}
.bar{height:.375rem;border-radius:1rem;overflow:hidden;background:color-mix(in srgb,var(--accent) 15%,transparent)}
.bar span{display:block;height:100%;width:40%;background:var(--accent);border-radius:1rem;animation:slide 2s ease-in-out infinite}
@keyframes slide{0%{margin-inline-start:-40%}100%{margin-inline-start:100%}}
@media (prefers-reduced-motion:reduce){.bar span{animation:none;width:100%}}
small{color:var(--muted)}
</style>
</head>
<body>
<main>
{{#isRejectQueue}}
<h1>{{t.rejectHeading}}</h1>
<p>{{t.rejectIntro}}</p>
{{/isRejectQueue}}
{{^isRejectQueue}}
<h1>{{t.heading}}</h1>
<p>{{t.intro}}</p>
<div class="wait" role="status" aria-live="polite">
<span>{{t.waitLabel}}</span>
<strong id="wait-time">{{#isRandomQueue}}{{#waitTimeKnown}}{{waitRangeFormatted}}{{/waitTimeKnown}}{{^waitTimeKnown}}{{waitTimeFormatted}}{{/waitTimeKnown}}{{/isRandomQueue}}{{^isRandomQueue}}{{waitTimeFormatted}}{{/isRandomQueue}}</strong>
</div>
<div class="bar" aria-hidden="true"><span></span></div>
{{#isRandomQueue}}<p>{{t.randomNote}}</p>{{/isRandomQueue}}
<p>{{t.refreshNote}}</p>
{{/isRejectQueue}}
<p><small>{{t.lastUpdatedLabel}}: <time datetime="{{lastUpdated}}">{{lastUpdatedFormatted}}</time></small></p>
{{{challengeWidget}}}
</main>
<script>
(function () {
  try {
    var clock = new Intl.DateTimeFormat(undefined, { hour: 'numeric' }).resolvedOptions().hourCycle;
    var format = new Intl.DateTimeFormat(document.documentElement.lang, { timeStyle: 'medium', hourCycle: clock });
    document.querySelectorAll('time[datetime]').forEach(function (time) {
      var date = new Date(time.getAttribute('datetime'));
      if (!isNaN(date.getTime())) time.textContent = format.format(date);
    });
  } catch (error) {}
})();
</script>
</body>
</html>
`
