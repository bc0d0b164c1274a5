/** The composer, the private notes and the forms of an interactive channel view. */
export const CHANNEL_CSS = `
.composer { display: flex; gap: 8px; margin-top: 16px; padding: 8px 0; }
.composer input { flex: 1; font: inherit; padding: 8px 10px; border-radius: 6px; border: 1px solid #999; }
.composer button, .modal button { font: inherit; padding: 6px 14px; border-radius: 4px; border: 1px solid #999; cursor: pointer; }
.problem { color: #d0332d; font-weight: 600; }
.private { opacity: .92; border-left: 3px solid #999; padding-left: 10px; }
.private-label { font-size: 12px; color: #888; }
.modal-backdrop { position: fixed; inset: 0; background: rgba(0,0,0,.55); display: flex; align-items: center; justify-content: center; }
.modal-backdrop[hidden] { display: none; }
.modal { background: #fff; color: #1d1c1d; padding: 20px; border-radius: 8px; width: min(480px, 92vw); display: flex; flex-direction: column; gap: 6px; }
.modal h2 { margin: 0 0 8px; font-size: 20px; }
.modal input, .modal textarea { font: inherit; padding: 6px 8px; border: 1px solid #999; border-radius: 4px; }
.modal .modal-actions { display: flex; justify-content: flex-end; gap: 8px; margin-top: 12px; }
.modal .primary { background: #007a5a; color: #fff; border-color: #007a5a; }
`;

/**
 * The channel view's script: it polls the live state (messages and the open form) every 500 ms and
 * sends what the person does (a command, a click, a form) to the routes of `registerChannelView`.
 */
export const CHANNEL_SCRIPT = `
const base = location.pathname.replace(/\\/$/, '');
const messages = document.getElementById('messages');
const modal = document.getElementById('modal');
const problem = document.getElementById('problem');
let shownModal = null;
let shownMessages = null;
function post(path, body) {
  return fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    .then((r) => r.json()).catch((e) => ({ ok: false, error: String(e) }));
}
function tell(outcome) {
  problem.hidden = outcome.ok || !outcome.error;
  problem.textContent = outcome.ok ? '' : outcome.error || '';
  refresh();
}
function hideModal() {
  shownModal = null;
  modal.hidden = true;
  modal.innerHTML = '';
}
function refresh() {
  return fetch(base + '/live').then((r) => r.json()).then((live) => {
    if (live.messages !== shownMessages) {
      shownMessages = live.messages;
      messages.innerHTML = live.messages;
    }
    const id = live.modal ? live.modal.id + live.modal.html.length : null;
    if (shownModal !== 'confirm' && id !== shownModal) {
      shownModal = id;
      modal.hidden = !live.modal;
      modal.innerHTML = live.modal ? live.modal.html : '';
      for (const input of modal.querySelectorAll('input[data-epoch]')) {
        const seconds = Number(input.dataset.value);
        if (seconds) {
          const d = new Date(seconds * 1000 - new Date(seconds * 1000).getTimezoneOffset() * 60000);
          input.value = d.toISOString().slice(0, 16);
        }
      }
    }
  }).catch(() => undefined);
}
document.getElementById('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = event.target.elements.text;
  const text = input.value.trim();
  if (!text) return;
  input.value = '';
  post('/command', { text }).then(tell);
});
messages.addEventListener('click', (event) => {
  const target = event.target.closest('[data-action]');
  if (!target) return;
  const send = () => post('/click', { message: target.dataset.message, action: target.dataset.action }).then(tell);
  if (target.tagName === 'A') { send(); return; }
  if (target.dataset.confirmTitle) {
    modal.hidden = false;
    shownModal = 'confirm';
    modal.innerHTML = '<form class="modal" role="dialog"><h2></h2><p></p><div class="modal-actions"><button type="button" data-close></button><button type="submit" class="primary"></button></div></form>';
    const form = modal.querySelector('form');
    form.setAttribute('aria-label', target.dataset.confirmTitle);
    form.querySelector('h2').textContent = target.dataset.confirmTitle;
    form.querySelector('p').textContent = target.dataset.confirmText;
    form.querySelector('[data-close]').textContent = target.dataset.confirmNo;
    form.querySelector('[type=submit]').textContent = target.dataset.confirmYes;
    form.addEventListener('submit', (e) => { e.preventDefault(); hideModal(); send(); });
    form.querySelector('[data-close]').addEventListener('click', hideModal);
    return;
  }
  send();
});
modal.addEventListener('submit', (event) => {
  const form = event.target;
  if (!form.dataset.modal) return;
  event.preventDefault();
  const values = {};
  for (const field of form.querySelectorAll('[name]')) {
    values[field.name] = field.dataset.epoch !== undefined
      ? String(Math.floor(new Date(field.value).getTime() / 1000))
      : field.value;
  }
  post('/modal', { modal: form.dataset.modal, values }).then((outcome) => {
    if (!outcome.ok) {
      // Errors by field come back in the form's next drawing; one for the whole form is shown here.
      const p = form.querySelector('[data-form-problem]');
      p.hidden = !outcome.error;
      p.textContent = outcome.error || '';
    } else {
      hideModal();
    }
    refresh();
  });
});
modal.addEventListener('click', (event) => {
  const close = event.target.closest('[data-close]');
  const form = event.target.closest('form');
  if (!close || !form || !form.dataset.modal) return;
  post('/modal/close', { modal: form.dataset.modal }).then(() => { hideModal(); refresh(); });
});
refresh();
setInterval(refresh, 500);
`;
