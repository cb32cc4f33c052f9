// market-intel dashboard: plain ES module, no build step; the explorer's charts load TradingView
// Lightweight Charts from this origin. Every DOM node is built with textContent, never innerHTML, so
// API data cannot inject markup.
import { companyReads, companyView } from './explorer-company.js';
import { contractView } from './explorer-contract.js';
import { evidenceView } from './explorer-evidence.js';
import { signalsView } from './explorer-signals.js';

const main = document.getElementById('main');
export const state = { me: null, csrf: null };

export function h(tag, attrs = {}, ...children) {
  const el = document.createElementNS(
    tag === 'svg' || attrs.svg ? 'http://www.w3.org/2000/svg' : 'http://www.w3.org/1999/xhtml',
    tag,
  );
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'svg' || value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
export const s = (tag, attrs = {}, ...children) => h(tag, { ...attrs, svg: true }, ...children);

export class ApiFailure extends Error {
  /** `retryAfter`: the seconds a 429 asks to wait (its Retry-After), else null. */
  constructor(status, message, retryAfter = null) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/** A 429: the user's dashboard reads are past their plan's allowance for now. */
function limitedFailure(res) {
  const wait = Math.max(1, Number.parseInt(res.headers.get('retry-after') ?? '', 10) || 5);
  return new ApiFailure(429, `Too many requests right now; try again in ${wait} s.`, wait);
}

/** Counts the routings: a read started under one routing is not used by a page the user has left. */
let routing = 0;

/** The answer to a read of a page the user has left (another page is being shown): dropped silently. */
class Superseded extends Error {}

function request(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && state.csrf) headers['x-csrf-token'] = state.csrf;
  return fetch(`/dashboard/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * The first page's reads, sent at boot beside the session's own (/me) instead of after it; the page's
 * `api` call takes its answer. Forgotten after the first routing, whichever page it showed.
 */
const early = new Map();

function askEarly() {
  const { name, args } = location.hash ? hashRoute() : { name: '', args: [] };
  for (const path of firstReads[name]?.(...args) ?? []) {
    const answer = request('GET', path);
    // A read never taken (the user signed out or moved on) must not report its failure.
    answer.catch(() => undefined);
    early.set(path, answer);
  }
}

function takeEarly(method, path) {
  if (method !== 'GET') return undefined;
  const answer = early.get(path);
  early.delete(path);
  return answer;
}

export async function api(method, path, body) {
  const startedIn = routing;
  const res = await (takeEarly(method, path) ?? request(method, path, body));
  if (res.status === 204) return null;
  if (res.status === 429) throw limitedFailure(res);
  const data = await res.json().catch(() => ({}));
  // A page still loading when the user moved on would otherwise draw over the page now shown.
  if (method === 'GET' && startedIn !== routing) throw new Superseded(path);
  if (!res.ok) throw new ApiFailure(res.status, data?.error?.message ?? `request failed (${res.status})`);
  return data;
}

function toast(text) {
  const el = document.getElementById('toast');
  el.textContent = text;
  el.classList.add('show');
  setTimeout(() => el.classList.remove('show'), 2500);
}

export const when = (iso) =>
  iso ? `${new Date(iso).toISOString().replace('T', ' ').slice(0, 16)} UTC` : '—';

export function render(...nodes) {
  main.replaceChildren(...nodes.flat());
}

function errorLine() {
  return h('p', { class: 'error', role: 'alert' });
}

/** Runs an action from a form, showing its error next to the form instead of failing silently. */
function guarded(errorEl, action) {
  return async (event) => {
    event?.preventDefault();
    errorEl.textContent = '';
    try {
      await action();
    } catch (error) {
      if (error instanceof Superseded) return;
      if (error instanceof ApiFailure && error.status === 401 && state.me) return signedOut();
      errorEl.textContent = error.message;
    }
  };
}

/** A destructive button that asks once more on its first press (keyboard and pointer alike). */
function confirmButton(label, confirmLabel, action) {
  const button = h('button', { type: 'button', class: 'danger' }, label);
  let armed = false;
  button.addEventListener('click', async () => {
    if (!armed) {
      armed = true;
      button.textContent = confirmLabel;
      button.classList.add('armed');
      setTimeout(() => {
        armed = false;
        button.textContent = label;
        button.classList.remove('armed');
      }, 5000);
      return;
    }
    button.disabled = true;
    await action();
  });
  return button;
}

function copyButton(text) {
  return h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async () => {
        await navigator.clipboard.writeText(text).then(
          () => toast('Copied'),
          () => toast('Copy failed: select the text instead'),
        );
      },
    },
    'Copy',
  );
}

function secretBox(title, value, note) {
  return h(
    'div',
    { class: 'secret', role: 'region', 'aria-label': title },
    h('strong', {}, title),
    h('code', { 'data-secret': '' }, value),
    copyButton(value),
    h('p', { class: 'muted' }, note),
  );
}

// ---------------------------------------------------------------- sign in / sign up

function authView(mode = 'signin') {
  const error = errorLine();
  const email = h('input', {
    type: 'email',
    name: 'email',
    id: 'email',
    autocomplete: 'email',
    required: true,
  });
  const password = h('input', {
    type: 'password',
    name: 'password',
    id: 'password',
    required: true,
    minlength: mode === 'signup' ? 10 : 1,
    autocomplete: mode === 'signup' ? 'new-password' : 'current-password',
  });
  const submit = async () => {
    const credentials = { email: email.value, password: password.value };
    // Sign-up answers alike for new and taken emails and opens no session: signing in is what tells.
    if (mode === 'signup') await api('POST', '/signup', credentials);
    const data = await api('POST', '/signin', credentials);
    state.csrf = data.csrf_token;
    await boot();
  };
  render(
    h(
      'section',
      { class: 'auth card' },
      h('h1', {}, mode === 'signup' ? 'Create your account' : 'Sign in'),
      h(
        'form',
        { onsubmit: guarded(error, submit), 'aria-describedby': 'auth-error' },
        h('label', { for: 'email' }, 'Email', email),
        h(
          'label',
          { for: 'password' },
          mode === 'signup' ? 'Password (10+ characters)' : 'Password',
          password,
        ),
        h('button', { type: 'submit' }, mode === 'signup' ? 'Sign up' : 'Sign in'),
      ),
      Object.assign(error, { id: 'auth-error' }),
      h(
        'p',
        { class: 'muted' },
        mode === 'signup' ? 'Have an account? ' : 'New here? ',
        h(
          'a',
          { href: mode === 'signup' ? '#/signin' : '#/signup' },
          mode === 'signup' ? 'Sign in' : 'Create an account',
        ),
      ),
    ),
  );
  email.focus();
}

// ---------------------------------------------------------------- keys

async function keysView() {
  const { data: keys } = await api('GET', '/keys');
  const plan = state.me.plan;
  const error = errorLine();
  const shown = h('div', { id: 'new-secret' });
  const name = h('input', { type: 'text', id: 'key-name', name: 'name', required: true, maxlength: 100 });
  const scopes = ['read', 'write', ...(state.me.user.is_admin ? ['admin'] : [])].map((scope) =>
    h('input', {
      type: 'checkbox',
      name: 'scopes',
      value: scope,
      id: `scope-${scope}`,
      checked: scope === 'read',
    }),
  );
  const live = h('input', {
    type: 'radio',
    name: 'mode',
    value: 'live',
    id: 'mode-live',
    disabled: !plan.liveKeys,
  });
  const test = h('input', { type: 'radio', name: 'mode', value: 'test', id: 'mode-test', checked: true });
  const create = async () => {
    const chosen = scopes.filter((c) => c.checked).map((c) => c.value);
    const created = await api('POST', '/keys', {
      name: name.value,
      scopes: chosen,
      mode: live.checked ? 'live' : 'test',
    });
    await keysView();
    document
      .getElementById('new-secret')
      .replaceChildren(
        secretBox(
          `New key “${created.key.name}”`,
          created.secret,
          'Shown once: only its sha256 hash is stored. Keep it out of URLs and client-side code.',
        ),
      );
  };
  const rows = keys.map((key) =>
    h(
      'tr',
      { class: key.revoked_at ? 'revoked' : '', 'data-key-id': key.id },
      h('td', {}, key.name),
      h('td', {}, h('span', { class: `badge ${key.mode}` }, key.mode)),
      h('td', {}, key.scopes.join(', ')),
      h('td', { class: 'mono' }, `${key.display_prefix}…`),
      h('td', {}, when(key.created_at)),
      h('td', {}, when(key.last_used_at)),
      h(
        'td',
        {},
        key.revoked_at
          ? `revoked ${when(key.revoked_at)}`
          : confirmButton('Revoke', 'Confirm revoke', async () => {
              await api('POST', `/keys/${key.id}/revoke`);
              toast('Key revoked');
              await keysView();
            }),
      ),
    ),
  );
  render(
    h('h1', {}, 'API keys'),
    shown,
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Create a key'),
      h(
        'form',
        { class: 'inline', onsubmit: guarded(error, create) },
        h('label', { for: 'key-name' }, 'Name', name),
        h(
          'fieldset',
          {},
          h('legend', {}, 'Scopes'),
          scopes.map((c) => h('label', { for: c.id }, c, ` ${c.value}`)),
        ),
        h(
          'fieldset',
          {},
          h('legend', {}, 'Mode'),
          h('label', { for: 'mode-test' }, test, ` test (${plan.test_rpm}/min)`),
          h(
            'label',
            { for: 'mode-live' },
            live,
            plan.liveKeys ? ` live (${plan.liveRpm}/min)` : ' live (needs developer or institutional)',
          ),
        ),
        h('button', { type: 'submit' }, 'Create key'),
      ),
      error,
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Your keys'),
      keys.length
        ? h(
            'table',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Name', 'Mode', 'Scopes', 'Key', 'Created', 'Last used', ''].map((t) =>
                  h('th', { scope: 'col' }, t),
                ),
              ),
            ),
            h('tbody', {}, rows),
          )
        : h('p', { class: 'muted' }, 'No keys yet.'),
    ),
  );
}

// ---------------------------------------------------------------- webhooks

async function deliveriesTable(webhookId) {
  const { data } = await api('GET', `/webhooks/${webhookId}/deliveries`);
  if (!data.length) return h('p', { class: 'muted' }, 'No deliveries yet.');
  return h(
    'table',
    { 'aria-label': 'Deliveries' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Delivery', 'Status', 'Attempts', 'Last status', 'Next attempt', 'Last error', ''].map((t) =>
          h('th', { scope: 'col' }, t),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      data.map((d) =>
        h(
          'tr',
          { class: d.status === 'failed' ? 'failed' : '', 'data-delivery-id': d.id, 'data-status': d.status },
          h('td', { class: 'mono' }, d.id.slice(0, 8)),
          h('td', { class: 'status' }, h('span', { class: `badge ${d.status}` }, d.status)),
          h('td', {}, d.attempts),
          h('td', {}, d.last_status ?? '—'),
          h('td', {}, d.status === 'pending' || d.status === 'delivering' ? when(d.next_attempt_at) : '—'),
          h('td', { class: 'muted' }, d.last_error ?? ''),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                onclick: async () => {
                  await api('POST', `/deliveries/${d.id}/resend`);
                  toast('Resend queued');
                  await webhooksView();
                },
              },
              'Resend',
            ),
          ),
        ),
      ),
    ),
  );
}

/** What a failing or suspended endpoint's owner needs to know, and the way back for a suspended one. */
function endpointHealth(w) {
  if (w.status === 'failing') {
    const backoff = w.retry_at ? `; backed off: no attempt before ${when(w.retry_at)}` : '';
    return h(
      'p',
      { class: 'endpoint-health' },
      `Failing since ${when(w.failing_since)}: ${w.failure_streak} attempts failed in a row${backoff}. ` +
        'Attempts go one at a time until one succeeds.',
    );
  }
  if (w.status !== 'suspended') return null;
  const error = errorLine();
  return h(
    'div',
    { class: 'endpoint-health', role: 'alert' },
    h(
      'p',
      {},
      `Suspended ${when(w.suspended_at)} after failing without a break since ${when(w.failing_since)}. ` +
        'Nothing is sent to it until you re-enable it; deliveries failed meanwhile can be resent below.',
    ),
    h(
      'button',
      {
        type: 'button',
        onclick: guarded(error, async () => {
          await api('POST', `/webhooks/${w.id}/enable`);
          toast('Webhook re-enabled');
          await webhooksView();
        }),
      },
      'Re-enable',
    ),
    error,
  );
}

/** The banner every page shows while a webhook of the user's is suspended. */
function showNotice(suspended) {
  const notice = document.getElementById('notice');
  notice.hidden = !suspended;
  notice.replaceChildren(
    suspended
      ? h(
          'a',
          { href: '#/webhooks' },
          `${suspended === 1 ? 'A webhook is' : `${suspended} webhooks are`} suspended after failing continuously: nothing is sent to ${suspended === 1 ? 'it' : 'them'} until re-enabled.`,
        )
      : '',
  );
}

/** Send a test event; rotate the secret (shown once, the old one still signing for the overlap window). */
function developerTools(w) {
  const test = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-action': 'test',
      onclick: async () => {
        await api('POST', `/webhooks/${w.id}/test`);
        toast('Test event queued');
        await webhooksView();
      },
    },
    'Send test event',
  );
  const rotate = confirmButton('Rotate secret', 'Confirm rotate', async () => {
    const rotated = await api('POST', `/webhooks/${w.id}/rotate-secret`);
    await webhooksView();
    const until = when(rotated.webhook.previous_secret_expires_at);
    document
      .getElementById('new-secret')
      .replaceChildren(
        secretBox(
          'New signing secret',
          rotated.secret,
          `Shown once. The previous secret still signs every delivery too until ${until}: switch your receiver before then.`,
        ),
      );
  });
  return [test, ' ', rotate, ' '];
}

async function webhooksView() {
  const { data: hooks } = await api('GET', '/webhooks');
  const error = errorLine();
  const url = h('input', {
    type: 'url',
    id: 'webhook-url',
    name: 'url',
    required: true,
    placeholder: 'https://example.com/hooks',
  });
  const create = async () => {
    const created = await api('POST', '/webhooks', { url: url.value });
    await webhooksView();
    document
      .getElementById('new-secret')
      .replaceChildren(
        secretBox(
          'Signing secret',
          created.secret,
          'Shown once. Verify deliveries with it (X-Service-Signature, or the Standard Webhooks headers); rotate it from the webhook’s card.',
        ),
      );
  };
  const active = hooks.filter((w) => !w.disabled_at);
  showNotice(active.filter((w) => w.status === 'suspended').length);
  const sections = await Promise.all(
    active.map(async (w) =>
      h(
        'section',
        { class: 'card', 'data-webhook-id': w.id, 'data-state': w.status },
        h('h2', { class: 'mono' }, w.url, ' ', h('span', { class: `badge ${w.status}` }, w.status)),
        endpointHealth(w),
        h(
          'p',
          { class: 'muted' },
          `created ${when(w.created_at)} `,
          developerTools(w),
          confirmButton('Delete', 'Confirm delete', async () => {
            await api('DELETE', `/webhooks/${w.id}`);
            await webhooksView();
          }),
        ),
        w.previous_secret_expires_at
          ? h(
              'p',
              { class: 'muted', 'data-overlap': '' },
              `Deliveries are signed with the previous secret too until ${when(w.previous_secret_expires_at)}.`,
            )
          : null,
        await deliveriesTable(w.id),
      ),
    ),
  );
  render(
    h('h1', {}, 'Webhooks'),
    h('div', { id: 'new-secret' }),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Add an endpoint'),
      h(
        'p',
        { class: 'muted' },
        `signal.created is sent when a new signal scores at or above the threshold. Your plan allows ${state.me.plan.maxWebhooks} webhooks.`,
      ),
      h(
        'form',
        { class: 'inline', onsubmit: guarded(error, create) },
        h('label', { for: 'webhook-url' }, 'HTTPS URL', url),
        h('button', { type: 'submit' }, 'Add webhook'),
      ),
      error,
    ),
    sections.length ? sections : h('p', { class: 'muted' }, 'No webhooks yet.'),
  );
}

// ---------------------------------------------------------------- usage

function usageChart(buckets) {
  const width = 720;
  const height = 150;
  const max = Math.max(1, ...buckets.map((b) => b.requests));
  const step = width / buckets.length;
  const bar = Math.max(1, step * 0.7);
  return s(
    'svg',
    {
      class: 'chart',
      viewBox: `0 0 ${width} ${height + 14}`,
      role: 'img',
      'aria-label': 'Requests and errors per bucket',
    },
    buckets.map((b, i) => {
      const rh = (b.requests / max) * height;
      const eh = (b.errors / max) * height;
      return s(
        'g',
        {},
        s(
          'rect',
          { class: 'req', x: i * step, y: height - rh, width: bar, height: rh },
          s('title', {}, `${b.start}: ${b.requests} requests, ${b.errors} errors`),
        ),
        s('rect', { class: 'err', x: i * step, y: height - eh, width: bar, height: eh }),
      );
    }),
    s('text', { x: 0, y: height + 12 }, when(buckets[0]?.start)),
    s('text', { x: width, y: height + 12, 'text-anchor': 'end' }, when(buckets.at(-1)?.start)),
  );
}

function usageCard(attrs, heading, usage, window) {
  return h(
    'section',
    { class: 'card', ...attrs },
    heading,
    h(
      'p',
      {},
      h('strong', { 'data-requests': usage.totals.requests }, `${usage.totals.requests} requests`),
      `, ${usage.totals.errors} errors in the last ${window}`,
    ),
    usageChart(usage.buckets),
  );
}

async function usageView(window = '24h') {
  const { data, dashboard } = await api('GET', `/usage?window=${window}`);
  const picker = h(
    'div',
    { class: 'tabs', role: 'group', 'aria-label': 'Window' },
    ['24h', '7d', '30d'].map((w) =>
      h(
        'button',
        {
          type: 'button',
          class: w === window ? '' : 'secondary',
          'aria-pressed': w === window,
          onclick: () => usageView(w),
        },
        w,
      ),
    ),
  );
  render(
    h('h1', {}, 'Usage'),
    picker,
    h(
      'p',
      { class: 'legend' },
      h('span', {}, h('i', { class: 'sw req-sw' }), 'requests'),
      h('span', {}, h('i', { class: 'sw err-sw' }), 'errors (status ≥ 400)'),
    ),
    usageCard(
      { 'data-usage-dashboard': '' },
      h('h2', {}, 'Dashboard ', h('span', { class: 'muted' }, `(${dashboard.per_minute} reads/min)`)),
      dashboard.usage,
      window,
    ),
    data.length
      ? data.map(({ key, usage }) =>
          usageCard(
            { 'data-usage-key': key.id },
            h('h2', {}, `${key.name} `, h('span', { class: 'mono muted' }, `${key.display_prefix}…`)),
            usage,
            window,
          ),
        )
      : h('p', { class: 'muted' }, 'No keys yet.'),
  );
}

// ---------------------------------------------------------------- sources

async function sourcesView() {
  const { data } = await api('GET', '/sources');
  render(
    h('h1', {}, 'Sources'),
    h('p', { class: 'muted' }, 'Where the events come from, and how fresh each source is.'),
    data.map((s) =>
      h(
        'section',
        { class: 'card', 'data-source': s.source },
        h('h2', {}, s.name),
        h(
          'dl',
          {},
          h('dt', {}, 'Schedule'),
          h('dd', {}, s.scheduled ? 'on' : 'off'),
          h('dt', {}, 'Last success'),
          h('dd', { 'data-last-success': s.last_success_at ?? '' }, when(s.last_success_at)),
          h('dt', {}, 'Next run'),
          h('dd', { 'data-next-run': s.next_run_at ?? '' }, when(s.next_run_at)),
          ...(s.latest ? [h('dt', {}, 'Latest release'), h('dd', {}, s.latest)] : []),
          ...(s.last_refused_at
            ? [h('dt', {}, 'Last refused (403)'), h('dd', {}, when(s.last_refused_at))]
            : []),
          ...(s.last_error_at
            ? [h('dt', {}, 'Last error'), h('dd', {}, `${when(s.last_error_at)} ${s.last_error ?? ''}`)]
            : []),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- plan and users

function planView() {
  const { user, plan, plans } = state.me;
  const rpm = (p) => (p.liveRpm ? `${p.liveRpm}/min` : '—');
  render(
    h('h1', {}, 'Plan'),
    h(
      'section',
      { class: 'card' },
      h(
        'p',
        {},
        'You are on the ',
        h('strong', { 'data-plan': user.plan }, user.plan),
        ' plan, reaching the ',
        h('strong', {}, plan.tier),
        ' tier.',
      ),
      h(
        'p',
        { class: 'muted' },
        `Test keys: at most ${plan.max_test_keys}, ${plan.test_rpm} requests/min each, on any plan.`,
      ),
      h(
        'p',
        { class: 'muted' },
        `Dashboard: ${plan.dashboardRpm} reads/min for you, counted on the Usage page.`,
      ),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'All plans'),
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [
              'Plan',
              'Live keys',
              'Highest tier',
              'Live rate',
              'Live keys max',
              'Webhooks max',
              'Dashboard reads',
            ].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        h(
          'tbody',
          {},
          plans.map((p) =>
            h(
              'tr',
              {},
              h('td', {}, p.name),
              h('td', {}, p.liveKeys ? 'yes' : 'no'),
              h('td', {}, p.tier),
              h('td', {}, rpm(p)),
              h('td', {}, p.maxLiveKeys),
              h('td', {}, p.maxWebhooks),
              h('td', {}, `${p.dashboardRpm}/min`),
            ),
          ),
        ),
      ),
    ),
  );
}

async function usersView() {
  const { data } = await api('GET', '/admin/users');
  const plans = state.me.plans.map((p) => p.name);
  render(
    h('h1', {}, 'Users'),
    h(
      'section',
      { class: 'card' },
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Email', 'Admin', 'Created', 'Plan'].map((t) => h('th', { scope: 'col' }, t)),
          ),
        ),
        h(
          'tbody',
          {},
          data.map((u) => {
            const select = h(
              'select',
              { 'aria-label': `Plan of ${u.email}`, id: `plan-${u.id}` },
              plans.map((p) => h('option', { value: p, selected: p === u.plan }, p)),
            );
            const error = errorLine();
            const save = guarded(error, async () => {
              await api('PATCH', `/admin/users/${u.id}`, { plan: select.value });
              toast(`${u.email} is now on ${select.value}`);
            });
            return h(
              'tr',
              {},
              h('td', {}, u.email),
              h('td', {}, u.is_admin ? 'yes' : ''),
              h('td', {}, when(u.created_at)),
              h(
                'td',
                {},
                select,
                ' ',
                h('button', { type: 'button', class: 'secondary', onclick: save }, 'Save'),
                error,
              ),
            );
          }),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- routing

/** The `?…` of `#/page?…`: the filters of a linkable view. */
const hashQuery = () => new URLSearchParams(location.hash.split('?')[1] ?? '');

const views = {
  signals: () => signalsView(hashQuery()),
  evidence: () => evidenceView(hashQuery()),
  sources: sourcesView,
  keys: keysView,
  webhooks: webhooksView,
  usage: () => usageView(),
  plan: planView,
  users: usersView,
  companies: (ticker) => companyView(ticker),
  contracts: (id) => contractView(id),
};
/** The reads a page makes first, by the same arguments: the busiest pages' only. */
const firstReads = { companies: companyReads };

/** `#/name/arg…?query`: the explorer's pages take a ticker or a contract id, or filters (hashQuery). */
function hashRoute() {
  const [first, ...args] = location.hash.replace(/^#\//, '').split('?')[0].split('/');
  return { name: first || 'keys', args: args.map(decodeURIComponent) };
}

function signedOut() {
  state.me = null;
  state.csrf = null;
  document.getElementById('notice').hidden = true;
  document.getElementById('nav').hidden = true;
  document.getElementById('who').hidden = true;
  authView(location.hash === '#/signup' ? 'signup' : 'signin');
}

/**
 * The page (or the sign-in check) was refused for the dashboard's allowance: say so, count down the
 * Retry-After, then `again()` — unless the user went to another page meanwhile, which draws itself.
 */
function waitAndRetry(error, again) {
  const started = routing;
  let left = error.retryAfter;
  const seconds = h('strong', { 'data-retry-in': left }, String(left));
  const per = state.me?.plan?.dashboardRpm;
  render(
    h(
      'section',
      { class: 'card', role: 'status', 'data-rate-limited': '' },
      h('h1', {}, 'Too many requests'),
      h(
        'p',
        {},
        per ? `Your plan's dashboard allows ${per} reads a minute. ` : '',
        'This page loads again in ',
        seconds,
        ' s.',
      ),
    ),
  );
  const timer = setInterval(() => {
    if (started !== routing) return clearInterval(timer);
    left -= 1;
    seconds.textContent = String(Math.max(0, left));
    seconds.dataset.retryIn = String(Math.max(0, left));
    if (left > 0) return;
    clearInterval(timer);
    void again();
  }, 1000);
}

async function route() {
  routing += 1;
  if (!state.me) {
    early.clear();
    return signedOut();
  }
  const { name, args } = hashRoute();
  const view = views[name] ?? views.keys;
  for (const link of document.querySelectorAll('nav a')) {
    const current = link.getAttribute('href')?.split('/')[1] === name;
    link.toggleAttribute('aria-current', current);
    if (current) link.setAttribute('aria-current', 'page');
  }
  try {
    await view(...args);
    main.focus({ preventScroll: true });
  } catch (error) {
    if (error instanceof Superseded) return;
    if (error instanceof ApiFailure && error.status === 401) return signedOut();
    if (error instanceof ApiFailure && error.status === 429) return waitAndRetry(error, route);
    render(h('p', { class: 'error', role: 'alert' }, error.message));
  } finally {
    early.clear();
  }
}

async function boot() {
  const me = api('GET', '/me');
  askEarly();
  try {
    state.me = await me;
    state.csrf = state.me.csrf_token;
  } catch (error) {
    state.me = null;
    // Signed in but refused for now: not a reason to show the sign-in form.
    if (error instanceof ApiFailure && error.status === 429) return waitAndRetry(error, boot);
  }
  if (state.me) {
    document.getElementById('nav').hidden = false;
    document.getElementById('who').hidden = false;
    document.getElementById('who-email').textContent = `${state.me.user.email} · ${state.me.user.plan}`;
    document.getElementById('nav-users').hidden = !state.me.user.is_admin;
    showNotice(state.me.suspended_webhooks);
    // Without a hashchange event: its handler would render the page a second time, after the route()
    // below, wiping what the user has begun to type.
    if (location.hash === '#/signin' || location.hash === '#/signup' || !location.hash)
      history.replaceState(null, '', '#/keys');
  }
  await route();
  document.body.dataset.ready = 'true';
}

document.getElementById('signout').addEventListener('click', async () => {
  await api('POST', '/signout').catch(() => undefined);
  location.hash = '#/signin';
  signedOut();
});
window.addEventListener('hashchange', () => void route());
void boot();
