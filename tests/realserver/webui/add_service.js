// The Add Service wizard of Ambari's web UI, driven in headless Chromium (playwright-core), as an operator does it.
//
//   node add_service.js <plan.json>      -> one JSON line on stdout (the result); progress on stderr
//
// plan.json (written by tests/realserver/test_web_ui.py):
//   url, user, password, chromium    the server, its admin login, the browser executable
//   service, displayName             KAFKA_MIRRORMAKER2 and its display name (the single source: names.py)
//   tabs                             the theme's tabs: [{name, displayName}] (theme.json)
//   type                             {"type/name": value}: what the operator types into the fields on the tabs
//   set                              {"type/name": value}: lab-only values (paths under the test's dir, this
//                                    host's user) that are not on a theme tab; set on the page's configuration
//                                    model (what the Advanced sections' inputs write to)
//   artifacts                        the directory for screenshots
//   deployTimeoutSeconds             bound of the Install, Start and Test step
//
// result: {steps: [[step, seconds]], shownByTab: {tab: ["type/name", ...]}, placedByTab: {tab: [[ref, visible]]},
//          typed: [...], notTaken: [{ref, kind, value, now|why}], set: [...], missing: [...],
//          comboMenuClosed: [ref] (combos whose dropdown did not open: typed into their text box),
//          http: [{method, url, status, sent, body}] (every answer >= 300 and every request without one),
//          deploy: {status, progress, message}, screenshot, error}
// Values are entered as an operator does: a combo's entry is picked from its dropdown, a text field is typed into,
// a slider, spinner or toggle is switched to its text box with the pencil ("Edit") and typed into.
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const result = { steps: [], shownByTab: {}, placedByTab: {}, typed: [], notTaken: [], comboMenuClosed: [], lost: [], recommendations: [], set: [], missing: [], popups: [] };
const t0 = Date.now();
const log = (msg) => process.stderr.write(`[webui ${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);
const step = (name) => { result.steps.push([name, (Date.now() - t0) / 1000]); log(name); };

async function shot(page, name) {
  const file = path.join(plan.artifacts, name + '.png');
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

// The wizard's current step of addServiceController (1..7), '' before it opened.
async function wizardStep(page) {
  return page.evaluate(() => (window.App && App.router) ? String(App.router.get('addServiceController.currentStep') || '') : '');
}

async function waitStep(page, n, timeoutMs) {
  await page.waitForFunction((n) => new RegExp('/service/add/step' + n + '$').test(location.hash)
    && App.router.get('addServiceController.currentStep') == n, n, { timeout: timeoutMs });
}

// Buttons of the popups the wizard opens on top of itself (dependent configurations, validation warnings):
// the operator accepts them ("Proceed Anyway", "OK", "Apply"); their text is kept in the result.
async function acceptPopups(page) {
  const primary = page.locator('[data-qa="modal-primary"]:visible');
  const n = await primary.count();
  for (let i = 0; i < n; i++) {
    const button = primary.nth(i);
    const text = (await button.innerText()).trim();
    if (/cancel/i.test(text)) continue;
    const body = await page.locator('[data-qa="modal-body"]:visible').last().innerText().catch(() => '');
    result.popups.push({ button: text, body: body.slice(0, 2000) });
    log(`popup: ${text}: ${body.slice(0, 200).replace(/\s+/g, ' ')}`);
    await button.click();
    await page.waitForTimeout(1000);
    return true;
  }
  return false;
}

async function clickNext(page, from, timeoutMs) {
  const next = page.locator('[data-qa="wizard-next"]:visible');
  await next.first().waitFor({ timeout: timeoutMs });
  await page.waitForTimeout(1000);
  while (await acceptPopups(page)) { /* a popup the step opened on its own */ }
  await page.waitForFunction(() => {
    const b = Array.from(document.querySelectorAll('[data-qa="wizard-next"]')).filter((e) => e.offsetParent !== null)[0];
    return b && !b.disabled;
  }, null, { timeout: timeoutMs });
  const clicked = (Date.now() - t0) / 1000;
  await next.first().click();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await wizardStep(page) != from) return;
    if (from === '5') {
      // Deploy: step8's ajax queue ("Initializing Tasks") stops for good at its first failed call (abortOnError)
      const left = await page.evaluate(() => App.router.get('wizardStep8Controller.ajaxRequestsQueue.queue.length'));
      const failed = result.http.filter((h) => h.at >= clicked && h.status !== 0 && !/\/persist\//.test(h.url));
      if (left === 0 && failed.length) {
        await page.waitForTimeout(5000);
        if (await wizardStep(page) != from) return;
        const popup = await page.locator('.modal:visible').last().innerText().catch(() => '');
        throw new Error(`Deploy stopped on step 5 (popup: ${popup.replace(/\s+/g, ' ').slice(0, 300)}) after the failed call(s): `
          + failed.map((h) => `${h.status} ${h.method} ${h.url} sent ${h.sent.slice(0, 300)} answered ${h.body.slice(0, 600)}`).join(' | '));
      }
    }
    if (!(await acceptPopups(page))) await page.waitForTimeout(500);
  }
  throw new Error(`the wizard stayed on step ${from} after Next`);
}

// Every configuration widget Ember shows on the page now: "type/name" of the visible ones, with their tab.
async function shownWidgets(page) {
  return page.evaluate(() => Object.values(Em.View.views)
    .filter((v) => v instanceof App.ConfigWidgetView && v.get('element') && v.get('config')
      && $(v.get('element')).is(':visible'))
    .map((v) => ({ ref: v.get('config.filename').replace(/\.xml$/, '') + '/' + v.get('config.name'),
                   tab: v.get('tab.name') || null })));
}

// The widget of "type/name" shown on the tab now: marked data-mm2-widget=ref; its kind decides how the operator
// enters a value: 'combo' (the dropdown's entries), 'text' (its own visible text field or text area), 'slider'
// (its handle moved with the arrow keys), 'switch' (spinner, toggle: the pencil "Edit" switches it to a text box). Its config value and, for a combo, the
// entries' values in order.
async function markWidget(page, tabName, ref) {
  return page.evaluate(([ref, tabName]) => {
    const v = Object.values(Em.View.views).find((v) => v instanceof App.ConfigWidgetView && v.get('element')
      && v.get('config') && v.get('tab.name') === tabName
      && v.get('config.filename').replace(/\.xml$/, '') + '/' + v.get('config.name') === ref
      && $(v.get('element')).is(':visible'));
    if (!v) return null;
    const el = v.get('element');
    el.setAttribute('data-mm2-widget', ref);
    const value = String(v.get('config.value'));
    if (v instanceof App.SliderConfigWidgetView && !v.get('config.showAsTextBox') && el.querySelector('.slider-handle')) {
      return { kind: 'slider', value };
    }
    if (v instanceof App.ComboConfigWidgetView && !v.get('config.showAsTextBox')) {
      return { kind: 'combo', value, entries: (v.get('content.valuesList') || []).map((e) => String(e.get('configValue'))) };
    }
    const own = Array.from(el.querySelectorAll('input[type="text"], textarea')).filter((i) => $(i).is(':visible')
      && !$(i).closest('.widget-config-raw').length);
    if (own.length === 1 && !own[0].disabled) return { kind: 'text', value };
    return { kind: el.querySelector('.widget-action-switch-view') ? 'switch' : 'none', value };
  }, [ref, tabName]);
}

async function configValue(page, tabName, ref) {
  return (await markWidget(page, tabName, ref) || {}).value;
}

// Enters `value` into the widget of `ref` on the tab as an operator does; true when the page's config took it.
async function enterValue(page, tabName, ref, value) {
  const w = await markWidget(page, tabName, ref);
  if (!w) return false;
  const root = page.locator(`[data-mm2-widget="${ref}"]`);
  if (w.kind === 'combo') {
    const i = w.entries.indexOf(value);
    if (i < 0) { result.notTaken.push({ ref, kind: w.kind, value, why: 'not an entry: ' + w.entries.join(', ') }); return false; }
    await root.locator('button.dropdown-toggle').first().click();
    const entry = root.locator('ul.dropdown-menu li a').nth(i);
    if (await entry.isVisible()) {
      await entry.click();
    } else {
      // trunk's ambari-web: the combo's caret (Bootstrap 3 data-toggle="dropdown" under Bootstrap 5) opens no menu;
      // the operator's way left is the pencil ("Edit"): the value typed into the text box
      result.comboMenuClosed.push(ref);
      log(`combo ${ref}: its dropdown did not open; typed into its text box (pencil)`);
      await root.locator('.widget-action-switch-view').first().click();
      const input = root.locator('.widget-config-raw input:visible, .widget-config-raw textarea:visible').first();
      await input.fill(value);
      await input.press('Tab');
    }
  } else if (w.kind === 'slider') {
    // the slider's handle, moved with the arrow keys one step at a time until the value is the one wanted
    const handle = root.locator('.slider-handle:visible').first();
    await handle.focus();
    const target = Number(value);
    let now = Number(w.value), previous = null;
    for (let i = 0; i < 400 && now !== target && now !== previous; i++) {
      previous = now;
      await handle.press(now > target ? 'ArrowLeft' : 'ArrowRight');
      now = Number(await configValue(page, tabName, ref));
    }
  } else if (w.kind === 'text') {
    const input = root.locator('input[type="text"]:visible, textarea:visible').first();
    await input.fill(value);
    await input.press('Tab');
  } else if (w.kind === 'switch') {
    await root.locator('.widget-action-switch-view').first().click();
    const input = root.locator('.widget-config-raw input:visible, .widget-config-raw textarea:visible').first();
    await input.fill(value);
    await input.press('Tab');
  } else {
    result.notTaken.push({ ref, kind: w.kind, value, why: 'no field to type into' });
    return false;
  }
  await page.waitForTimeout(300);
  const now = await configValue(page, tabName, ref);
  if (now !== value) { result.notTaken.push({ ref, kind: w.kind, value, now }); return false; }
  log(`entered ${ref} = ${value} (${w.kind})`);
  result.typed.push(ref);
  await checkTyped(page, 'after entering ' + ref);
  return true;
}

// The page's model values of "type/name" refs (every service tab of Customize Services).
async function modelValues(page, refs) {
  return page.evaluate((refs) => {
    const configs = [].concat(...App.router.get('wizardStep7Controller.stepConfigs').map((sc) => sc.get('configs').toArray()));
    const out = {};
    refs.forEach((ref) => {
      const [type, ...rest] = ref.split('/');
      const c = configs.find((c) => c.get('name') === rest.join('/') && c.get('filename').replace(/\.xml$/, '') === type);
      out[ref] = c ? String(c.get('value')) : null;
    });
    return out;
  }, refs);
}

// Typed values the page no longer holds: noted once in result.lost with the moment it was seen.
async function checkTyped(page, when) {
  const now = await modelValues(page, result.typed);
  for (const ref of result.typed) {
    if (now[ref] !== String(plan.type[ref]) && !result.lost.some((l) => l.ref === ref)) {
      result.lost.push({ ref, typed: String(plan.type[ref]), now: now[ref], seen: when });
      log(`typed value lost: ${ref} = ${now[ref]} (typed ${plan.type[ref]}), seen ${when}`);
    }
  }
}

async function run() {
  const browser = await chromium.launch({ executablePath: plan.chromium, headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1400 } });
    try {
      await wizard(page);
    } catch (err) {
      result.failureScreenshot = await shot(page, 'failure').catch(() => null);
      throw err;
    }
  } finally {
    await browser.close();
  }
}

async function wizard(page) {
  {
    page.on('pageerror', (err) => log('page error: ' + String(err && err.stack || err).slice(0, 800)));
    // every REST call that did not succeed (status >= 300 or no answer), with its body: kept in result.http
    result.http = [];
    page.on('response', async (res) => {
      if (res.status() < 300) return;
      const req = res.request();
      const body = await res.text().catch(() => '');
      const entry = { method: req.method(), url: res.url(), status: res.status(), sent: (req.postData() || '').slice(0, 2000),
                      body: body.slice(0, 2000), at: (Date.now() - t0) / 1000 };
      result.http.push(entry);
      log(`HTTP ${entry.status} ${entry.method} ${entry.url}: ${entry.body.slice(0, 300).replace(/\s+/g, ' ')}`);
    });
    page.on('requestfailed', (req) => {
      result.http.push({ method: req.method(), url: req.url(), status: 0, failure: String(req.failure() && req.failure().errorText), at: (Date.now() - t0) / 1000 });
      log(`HTTP failed ${req.method()} ${req.url()}: ${req.failure() && req.failure().errorText}`);
    });
    // the calls that change the cluster (Deploy's), with their status
    page.on('response', async (res) => {
      if (res.status() >= 300 || !/\/recommendations$/.test(res.url().split('?')[0])) return;
      const body = await res.json().catch(() => null);
      const sent = JSON.parse(res.request().postData() || '{}');
      const conf = (((body || {}).resources || [])[0] || {}).recommendations;
      const configs = conf && conf.blueprint && conf.blueprint.configurations || {};
      const ours = {};
      Object.keys(configs).filter((t) => t.startsWith('kafka-mm2')).forEach((t) => { ours[t] = (configs[t] || {}).properties; });
      result.recommendations.push({ at: (Date.now() - t0) / 1000, recommend: sent.recommend,
        changed: (sent.changed_configurations || []).map((c) => c.type + '/' + c.name), answer: ours });
      if (sent.recommend !== 'host_groups') log(`recommendations (${sent.recommend}) for ${JSON.stringify(sent.changed_configurations || []).slice(0, 200)}: ${JSON.stringify(ours).slice(0, 600)}`);
    });
    page.on('requestfinished', async (req) => {
      if (!['POST', 'PUT', 'DELETE'].includes(req.method())) return;
      const res = await req.response().catch(() => null);
      log(`${req.method()} ${req.url()} -> ${res ? res.status() : '?'} ${(req.postData() || '').slice(0, 200).replace(/\s+/g, ' ')}`);
    });
    const slow = 240000;

    await page.goto(plan.url + '/#/login', { timeout: slow });
    await page.locator('[data-qa="username-input"]').fill(plan.user, { timeout: slow });
    await page.locator('[data-qa="password-input"]').fill(plan.password);
    await page.locator('[data-qa="login-button"]').click();
    await page.waitForFunction(() => window.App && App.router && App.router.get('loggedIn')
      && /#\/main\//.test(location.hash), null, { timeout: slow });
    step('logged in: ' + (await page.evaluate(() => location.hash)));
    // ambari-web of ../shared/ambari-src (apache/ambari HEAD of 2024-10-16) predates AMBARI-26187 (apache/ambari
    // #3849, 2024-10-19: "Ambari cluster deployment is encountering a blockage"): after its jQuery 3 upgrade,
    // App.ajaxQueue runs `r.then(this._complete)`, and jQuery 3's then() passes the response body, not the jqXHR,
    // so `xhr.status` is undefined after the first call, the queue is cleared without an error and Deploy stays on
    // "Initializing Tasks" after POST .../services. The same correction here, at run time (the sources stay
    // untouched): the status is read from the jqXHR, the third argument. Kept in result.patches.
    result.patches = await page.evaluate(() => {
      const broken = String(App.ajaxQueue.proto()._complete);
      if (!/^function\s*(_complete)?\s*\(xhr\)/.test(broken)) return [];   // a fixed ambari-web: nothing to do
      App.ajaxQueue.reopen({
        _complete: function (data, textStatus, jqXHR) {
          const xhr = jqXHR && jqXHR.status !== undefined ? jqXHR : data;
          if (xhr && xhr.status >= 200 && xhr.status <= 299) this.runNextRequest();
          else if (this.get('abortOnError')) this.clear();
          else this.runNextRequest();
        },
      });
      return ['App.ajaxQueue._complete reads the jqXHR (AMBARI-26187)'];
    });
    if (result.patches.length) log('patched: ' + result.patches.join('; '));

    // Services > "..." > Add Service (all_services_actions.hbs); a wizard left open earlier reopens at login
    if (!/service\/add/.test(await page.evaluate(() => location.hash))) {
      await page.locator('.glyphicon-option-horizontal').first().click({ timeout: slow });
      await page.locator('ul.services-dropdown a', { hasText: 'Add Service' }).first().click({ timeout: slow });
    }
    await page.waitForFunction(() => /service\/add\/step\d$/.test(location.hash), null, { timeout: slow });
    const resumed = Number(await wizardStep(page));   // a wizard left open earlier reopens at its step
    if (resumed > 1) step('wizard resumed at step ' + resumed);
    if (resumed <= 1) {
    const row = page.locator('[data-qa="service-row"]', { has: page.locator('[data-qa="service-name"]', { hasText: plan.displayName }) });
    await row.first().waitFor({ timeout: slow });
    // the row toggles its (styled, hidden) checkbox: wizard/step4.hbs toggleCheckBox
    await row.first().locator('[data-qa="service-name"]').click();
    if (!(await row.first().locator('input[type="checkbox"]').isChecked())) throw new Error(plan.displayName + ' not selected');
    step('Choose Services: ' + plan.displayName + ' selected');
    await shot(page, '1-choose-services');
    await clickNext(page, '1', slow);

    await waitStep(page, 2, slow);
    step('Assign Masters');
    await shot(page, '2-assign-masters');
    await clickNext(page, '2', slow);
    }
    if (resumed <= 3) {

    // Assign Slaves and Clients: the wizard passes it on by itself when the service has neither (step 3 -> 4)
    await waitStep(page, 3, slow);
    step('Assign Slaves and Clients');
    try {
      await waitStep(page, 4, 20000);
    } catch (e) {
      await shot(page, '3-assign-slaves');
      await clickNext(page, '3', slow);
      await waitStep(page, 4, slow);
    }
    }
    await page.waitForFunction(() => App.router.get('wizardStep7Controller.isConfigsLoaded')
      && App.router.get('wizardStep7Controller.stepConfigs.length') > 0, null, { timeout: slow });
    await page.locator('.service-config-tab-content').first().waitFor({ timeout: slow });
    step('Customize Services loaded');

    // The theme's tabs: click each, note the widgets shown, type the values of the fields on it.
    for (const tab of plan.tabs) {
      const link = page.locator('ul.nav-tabs a', { hasText: tab.displayName });
      if (await link.count() === 0) { result.shownByTab[tab.name] = null; continue; }
      await link.first().click();
      await page.waitForTimeout(1500);
      for (const [ref, value] of Object.entries(plan.type)) {
        await enterValue(page, tab.name, ref, String(value));
      }
      await checkTyped(page, 'after the tab ' + tab.name);
      const shown = await shownWidgets(page);
      result.shownByTab[tab.name] = shown.filter((w) => w.tab === tab.name).map((w) => w.ref);
      log(`tab ${tab.displayName}: ${result.shownByTab[tab.name].length} properties shown`);
      await shot(page, 'tab-' + tab.name);
    }
    // what each theme tab holds in the page's model, with the theme's conditions applied (visible or not)
    result.placedByTab = await page.evaluate((service) => {
      const out = {};
      App.Tab.find().filterProperty('serviceName', service).forEach((tab) => {
        out[tab.get('name')] = [];
        tab.get('sections').forEach((section) => section.get('subSections').forEach((sub) => (sub.get('configs') || []).forEach((c) =>
          out[tab.get('name')].push([c.get('filename').replace(/\.xml$/, '') + '/' + c.get('name'), !!c.get('isVisible')]))));
      });
      return out;
    }, plan.service);

    // lab-only values that are on no theme tab: the configuration model behind the Advanced sections
    const setResult = await page.evaluate(([service, values]) => {
      // every service tab of the page: a service's USER properties are on the MISC one
      const configs = [].concat(...App.router.get('wizardStep7Controller.stepConfigs').map((sc) => sc.get('configs').toArray()));
      const done = [], missing = [];
      Object.keys(values).forEach((ref) => {
        const [type, ...rest] = ref.split('/');
        const name = rest.join('/');
        const c = configs.find((c) => c.get('name') === name && c.get('filename').replace(/\.xml$/, '') === type);
        if (c) { c.set('value', values[ref]); done.push(ref); } else { missing.push(ref); }
      });
      return { done, missing };
    }, [plan.service, plan.set]);
    result.set = setResult.done;
    result.missing = setResult.missing;
    // the configuration page as the operator sees it, on the first theme tab
    await page.locator('ul.nav-tabs a', { hasText: plan.tabs[0].displayName }).first().click();
    await page.waitForTimeout(1500);
    result.screenshot = await shot(page, 'customize-services');
    step('Customize Services checked');
    const errors = await page.evaluate((service) => App.router.get('wizardStep7Controller.stepConfigs')
      .findProperty('serviceName', service).get('configs').filter((c) => c.get('isVisible') && c.get('errorMessage'))
      .map((c) => c.get('filename') + '/' + c.get('name') + ': ' + c.get('errorMessage')), plan.service);
    if (errors.length) log('errors shown: ' + errors.join('; '));
    await checkTyped(page, 'before Next on Customize Services');
    result.pageErrors = errors;
    await clickNext(page, '4', slow);

    await waitStep(page, 5, slow);
    step('Review');
    await shot(page, '5-review');
    await clickNext(page, '5', slow);   // Deploy

    await waitStep(page, 6, slow);
    step('Install, Start and Test');
    const deadline = Date.now() + plan.deployTimeoutSeconds * 1000;
    let state = {};
    while (Date.now() < deadline) {
      state = await page.evaluate(() => ({
        status: App.router.get('wizardStep9Controller.status'),
        progress: App.router.get('wizardStep9Controller.progress'),
        cluster: App.router.get('addServiceController.content.cluster.status'),
        hosts: (App.router.get('wizardStep9Controller.hosts') || []).map((h) => ({ name: h.get('name'), status: h.get('status'), message: h.get('message') })),
      }));
      if (['STARTED', 'START FAILED', 'INSTALL FAILED'].includes(state.cluster) && String(state.progress) === '100') break;
      await page.waitForTimeout(3000);
    }
    result.deploy = state;
    await shot(page, '6-install-start-test');
    step('Install, Start and Test: ' + state.cluster + ' ' + state.progress + '%');
    if (state.cluster === 'STARTED') {
      await clickNext(page, '6', slow);
      await waitStep(page, 7, slow);
      await shot(page, '7-summary');
      await page.locator('[data-qa="wizard-next"]:visible').first().click();   // Complete
      await page.waitForFunction(() => !/service\/add/.test(location.hash), null, { timeout: slow });
      step('Summary: Complete');
    }
  }
}

run().then(() => {
  process.stdout.write(JSON.stringify(result) + '\n');
}, async (err) => {
  result.error = String(err && err.stack || err);
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exitCode = 1;
});
