// The approve form's signature pad (docs/api-contract.md §30: an account's `quote_signature: drawn`): a canvas the
// client draws on with a finger, a pen or the mouse (pointer events), a Clear button, and the drawing posted as a
// PNG data URL in the form's `signature_image` (§32). The page's script is this one, inline, carrying the
// nonce its Content-Security-Policy names (`script-src 'nonce-…'` and nothing else): no handler attribute, no
// other source. Without JavaScript the pad stays hidden and the page says that drawing needs it.
import { html, Html } from '../../core/html.js';

/** The pad's canvas in pixels: 3:1, well inside the 2,000 × 1,000 a drawing may be. */
export const PAD_SIZE = { width: 600, height: 200 };

/** Shows the pad, draws the strokes, clears them, and fills `signature_image` when the form is sent. */
const PAD_SCRIPT = `(function () {
  var pad = document.getElementById('signature-pad');
  var canvas = document.getElementById('signature-canvas');
  var field = document.getElementById('signature-image');
  var message = document.getElementById('signature-message');
  if (!pad || !canvas || !canvas.getContext || !window.PointerEvent) return;
  var form = field.form;
  var context = canvas.getContext('2d');
  context.lineWidth = 3;
  context.lineCap = 'round';
  context.lineJoin = 'round';
  context.strokeStyle = context.fillStyle = '#1f2937';
  var last = null;
  var drawn = false;
  pad.hidden = false;
  function point(event) {
    var box = canvas.getBoundingClientRect();
    return {
      x: ((event.clientX - box.left) * canvas.width) / box.width,
      y: ((event.clientY - box.top) * canvas.height) / box.height
    };
  }
  canvas.addEventListener('pointerdown', function (event) {
    event.preventDefault();
    canvas.setPointerCapture(event.pointerId);
    last = point(event);
    context.beginPath();
    context.arc(last.x, last.y, context.lineWidth / 2, 0, 2 * Math.PI);
    context.fill();
    drawn = true;
    message.hidden = true;
  });
  canvas.addEventListener('pointermove', function (event) {
    if (!last) return;
    var next = point(event);
    context.beginPath();
    context.moveTo(last.x, last.y);
    context.lineTo(next.x, next.y);
    context.stroke();
    last = next;
  });
  function end() { last = null; }
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);
  document.getElementById('signature-clear').addEventListener('click', function () {
    context.clearRect(0, 0, canvas.width, canvas.height);
    drawn = false;
    field.value = '';
  });
  form.addEventListener('submit', function (event) {
    if (!drawn) {
      event.preventDefault();
      message.hidden = false;
      return;
    }
    field.value = canvas.toDataURL('image/png');
  });
})();`;

/**
 * The pad's part of the approve form: the hidden field, the (hidden until the script runs) canvas and Clear
 * button, what to do without JavaScript, and the error an answer got on `signature_image`.
 */
export function padFields(business: string, error: string | undefined): Html {
  return html`<input type="hidden" name="signature_image" id="signature-image" value="">
<fieldset class="signature-pad" id="signature-pad" hidden>
<legend>Draw your signature</legend>
<canvas id="signature-canvas" width="${PAD_SIZE.width}" height="${PAD_SIZE.height}" role="img" aria-label="Signature pad: draw your signature with a finger, a pen or the mouse" aria-describedby="signature-help${error ? ' signature_image-error' : ''}"></canvas>
<p class="help" id="signature-help">Draw with a finger, a pen or the mouse. <button type="button" class="link-button" id="signature-clear">Clear</button></p>
<p class="field-error" id="signature-message" role="alert" hidden>Draw your signature in the box first.</p>
</fieldset>
<noscript><p class="field-error">Approving here needs your signature drawn in a box, which needs JavaScript: turn it on and reload the page, or contact ${business}.</p></noscript>
${error ? html`<p class="field-error" id="signature_image-error" data-field="signature_image">${error}</p>` : ''}`;
}

/** The pad's script, carrying the page's nonce. */
export function padScript(nonce: string): Html {
  return html`<script nonce="${nonce}">${new Html(PAD_SCRIPT)}</script>`;
}
