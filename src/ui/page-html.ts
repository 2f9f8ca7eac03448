// The page shell and its styles (the script is bundled from src/ui/page/app.ts). Nothing is loaded
// from outside: the page works on a machine with no network.

const STYLE = `
:root { font: 14px/1.4 system-ui, sans-serif; color: #1d2430; background: #f6f7f9; }
body { margin: 0; padding: 16px 24px; }
h1 { font-size: 20px; margin: 8px 0; word-break: break-all; }
h2 { font-size: 13px; margin: 14px 0 4px; color: #556; text-transform: uppercase; letter-spacing: .04em; }
a { color: #2458c6; }
.filters { display: flex; gap: 12px; align-items: end; margin: 8px 0 14px; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: #556; }
.filters input, .filters select { font: inherit; padding: 3px 6px; }
table.jobs { border-collapse: collapse; width: 100%; background: #fff; }
table.jobs th, table.jobs td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
.status { display: inline-block; padding: 0 6px; border-radius: 8px; background: #e3e6ea; font-size: 12px; }
.s-completed, .s-ok { background: #d8f0dc; } .s-failed, .s-error, .s-timed_out, .s-timed-out { background: #f8d6d6; }
.s-rejected, .s-denied { background: #fbe3c9; } .s-running, .s-waiting, .s-waiting-for-approval, .s-awaiting_approval { background: #dce8fb; }
.s-paused { background: #efe3fb; }
.task { color: #445; white-space: pre-wrap; } .answer { white-space: pre-wrap; } .error { color: #a11; white-space: pre-wrap; }
.timeline { background: #fff; border: 1px solid #e3e6ea; padding: 6px 12px 12px; }
.axisrow, .row { display: grid; grid-template-columns: minmax(260px, 38%) 1fr; gap: 12px; }
.axisrow::before { content: ''; }
.axis { position: relative; height: 18px; font-size: 11px; color: #778; border-bottom: 1px solid #ccd; }
.axis span { position: absolute; transform: translateX(-50%); white-space: nowrap; }
.axis span:first-child { transform: none; } .axis span:last-child { transform: translateX(-100%); }
.row { padding: 3px 0; border-top: 1px dotted #e3e6ea; }
.row.tool .left { padding-left: 14px; }
.label { display: flex; gap: 6px; align-items: baseline; flex-wrap: wrap; }
.label .name { font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }
.label .dur { color: #778; font-size: 12px; }
.notes { margin: 2px 0 0; padding-left: 16px; font-size: 12px; color: #445; }
.notes li { word-break: break-word; white-space: pre-wrap; }
.track { position: relative; min-height: 18px; background: repeating-linear-gradient(90deg, transparent 0 24.9%, #eef0f3 24.9% 25%); }
.bar { position: absolute; top: 3px; height: 12px; border-radius: 3px; background: #7a9be0; }
.bar.model { background: #9b86d6; } .bar.s-error, .bar.s-failed { background: #e07a7a; }
.bar.s-rejected, .bar.s-denied { background: #f0a860; } .bar.open { background: repeating-linear-gradient(45deg, #7a9be0 0 6px, #a9c0ee 6px 12px); }
.wait { position: absolute; top: 7px; height: 4px; background: #c9a227; }
`;

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>durable-agent jobs</title>
<style>${STYLE}</style>
</head>
<body>
<main id="app"></main>
<script type="module" src="/app.js"></script>
</body>
</html>
`;
