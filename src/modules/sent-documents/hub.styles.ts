// The hub's one stylesheet, served from /hub/static/hub.css (the Content-Security-Policy allows styles
// from this origin only, so nothing is inline). Mobile first; colours keep a contrast of at least 4.5:1.
/** The tab's icon: a plain page (so the browser does not ask the API for /favicon.ico). */
export const HUB_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M3 1h7l3 3v11H3z" fill="#1d4ed8"/><path d="M5 7h6M5 9h6M5 11h4" stroke="#fff"/></svg>';

export const HUB_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2937;background:#f3f4f6}
a{color:#1d4ed8}
:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.skip{position:absolute;left:-9999px}
.skip:focus{left:8px;top:8px;background:#fff;padding:8px 12px;z-index:1}
.page{max-width:880px;margin:0 auto;padding:16px}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:20px;margin-bottom:16px}
.business{display:flex;flex-wrap:wrap;gap:12px 24px;align-items:center;justify-content:space-between;margin-bottom:16px}
.business img{display:block;max-height:64px;max-width:220px;width:auto;height:auto}
.card img.logo,.card img.app-logo{display:block;max-height:64px;max-width:220px;width:auto;height:auto;margin:0 0 .75rem}
.business-name{font-size:1.375rem;font-weight:700;margin:0}
.business-contact{margin:0;color:#4b5563;font-size:.875rem}
.kind{margin:0;text-transform:uppercase;letter-spacing:.08em;font-size:.8125rem;font-weight:700;color:#4b5563}
h1{margin:0 0 4px;font-size:1.75rem;line-height:1.2;overflow-wrap:anywhere}
h2{font-size:1.125rem;margin:0 0 12px}
.title{margin:0 0 12px;color:#374151;overflow-wrap:anywhere}
.status{display:inline-block;padding:2px 10px;border-radius:999px;font-weight:600;font-size:.875rem;background:#e5e7eb;color:#1f2937}
.status-open{background:#dbeafe;color:#1e3a8a}
.status-good{background:#dcfce7;color:#14532d}
.status-bad{background:#fee2e2;color:#7f1d1d}
.facts{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:12px;margin:16px 0}
.facts div{background:#f9fafb;border-radius:6px;padding:8px 12px}
.facts dt{font-size:.8125rem;color:#4b5563}
.facts dd{margin:0;font-weight:600;font-size:1.0625rem}
.due dd{font-size:1.375rem}
.parties{display:grid;grid-template-columns:1fr;gap:16px}
.parties h2{font-size:.8125rem;text-transform:uppercase;letter-spacing:.08em;color:#4b5563;margin-bottom:4px}
.parties p{margin:0;overflow-wrap:anywhere}
table{width:100%;border-collapse:collapse}
th,td{padding:8px;text-align:left;vertical-align:top;border-bottom:1px solid #e5e7eb}
th{font-size:.8125rem;color:#4b5563;font-weight:600}
.num{text-align:right;white-space:nowrap}
td.desc{overflow-wrap:anywhere}
.item-name{display:block}
.item-description{display:block;color:#4b5563;font-size:.875rem;font-weight:400;white-space:pre-line}
.per{display:none}
.totals{margin:12px 0 0 auto;max-width:340px}
.totals div{display:flex;justify-content:space-between;gap:16px;padding:4px 0}
.totals dt,.totals dd{margin:0}
.totals dd{font-variant-numeric:tabular-nums}
.totals .grand{border-top:2px solid #1f2937;font-weight:700;font-size:1.125rem;padding-top:8px}
.prose{white-space:pre-line;overflow-wrap:anywhere;margin:0}
.button{display:inline-block;font:inherit;font-weight:600;padding:10px 18px;border-radius:6px;border:2px solid #1d4ed8;background:#1d4ed8;color:#fff;text-decoration:none;cursor:pointer;min-height:44px}
.button.secondary{background:#fff;color:#1d4ed8}
.button.danger{background:#fff;color:#b91c1c;border-color:#b91c1c}
.actions{margin-top:16px}
form{margin:0}
.answer{display:grid;grid-template-columns:1fr;gap:24px}
label{display:block;font-weight:600;margin-bottom:4px}
input[type=text],textarea{display:block;width:100%;font:inherit;padding:10px 12px;border:1px solid #6b7280;border-radius:6px;background:#fff;color:#1f2937}
textarea{min-height:96px;resize:vertical}
[aria-invalid=true]{border-color:#b91c1c;border-width:2px}
.help{margin:4px 0 12px;color:#4b5563;font-size:.875rem}
.field-error{margin:4px 0 0;color:#b91c1c;font-weight:600;font-size:.875rem}
.notice{border-radius:8px;padding:16px 20px;margin-bottom:16px;border:1px solid}
.notice h2{margin:0 0 4px}
.notice p{margin:0}
.notice-good{background:#f0fdf4;border-color:#86efac;color:#14532d}
.notice-bad{background:#fef2f2;border-color:#fca5a5;color:#7f1d1d}
.notice-info{background:#eff6ff;border-color:#93c5fd;color:#1e3a8a}
footer{color:#4b5563;font-size:.875rem;padding:8px 0 24px}
footer p{margin:0 0 4px;white-space:pre-line}
.message{max-width:560px;margin:10vh auto;text-align:center}
@media (max-width:599px){
  .page{padding:12px}
  .card{padding:16px}
  h1{font-size:1.5rem}
  thead{position:absolute;left:-9999px}
  tr{display:grid;grid-template-columns:1fr auto;gap:2px 12px;padding:10px 0;border-bottom:1px solid #e5e7eb}
  td{border:0;padding:0}
  td.desc{grid-column:1/-1;font-weight:600}
  td.qty,td.tax{color:#4b5563;font-size:.875rem}
  td.unit,td.tax{display:none}
  .per{display:inline}
  td.amount{grid-column:2;grid-row:2}
  .totals{max-width:none}
}
.files{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:12px}
.file{margin:0;overflow-wrap:anywhere}
.file-image img{display:block;width:100%;height:140px;object-fit:cover;border-radius:8px;border:1px solid #e5e7eb}
.caption{margin:4px 0 0;font-size:.875rem;color:#4b5563}
.signature-pad{border:0;margin:12px 0 0;padding:0;min-width:0}
.signature-pad legend{font-weight:600;margin-bottom:4px;padding:0}
.signature-pad canvas{display:block;width:100%;max-width:600px;height:auto;aspect-ratio:3/1;background:#fff;border:1px solid #6b7280;border-radius:6px;touch-action:none;cursor:crosshair}
.link-button{font:inherit;background:none;border:0;padding:0 2px;color:#1d4ed8;text-decoration:underline;cursor:pointer;min-height:24px}
@media (min-width:600px){
  .parties{grid-template-columns:1fr 1fr}
  .answer{grid-template-columns:1fr 1fr}
}
`;
