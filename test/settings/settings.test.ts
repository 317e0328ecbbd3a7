import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, buildTestApp, keysOf, type TestApp } from '../helpers/build.js';
import { HIDDEN_SECRETS, REFERENCE_SETTING_NAMES, SPEC_SETTING_NAMES, startSecondNode } from '../helpers/settings.js';
import { getSettings, setSettingsRecheckInterval } from '../../src/domain/settings/service.js';

const URL_ = '/api/v4/application/settings';
const MASK = '********';

for (const dialect of DIALECTS) {
  describe(`application settings (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await buildTestApp(dialect);
    });
    after(async () => t.close());

    const put = (query: string, body?: unknown) => t.request('PUT', `${URL_}${query ? `?${query}` : ''}`, body === undefined ? {} : { body });
    const current = async () => (await t.get(URL_)).body;
    const rawRow = async () => t.c.db.selectFrom('application_settings').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();

    it('GET answers every spec setting with id and timestamps, defaults as the spec gives them', async () => {
      const r = await t.get(URL_);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      const expected = [...SPEC_SETTING_NAMES.filter((n) => !HIDDEN_SECRETS.includes(n)), ...REFERENCE_SETTING_NAMES, 'id', 'created_at', 'updated_at'].sort();
      assert.deepEqual(keysOf(r.body), expected);
      const b = r.body;
      assert.equal(b.id, 1);
      assert.match(b.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const defaults: Record<string, unknown> = {
        default_branch_protection: 2,
        default_projects_limit: 100000,
        default_project_visibility: 'private',
        default_group_visibility: 'private',
        default_snippet_visibility: 'private',
        deletion_adjourned_period: 7,
        delayed_project_deletion: false,
        delayed_group_deletion: true,
        delete_inactive_projects: false,
        first_day_of_week: 0,
        max_export_size: 0,
        max_import_size: 0,
        raw_blob_request_limit: 300,
        search_rate_limit: 30,
        search_rate_limit_unauthenticated: 10,
        user_email_lookup_limit: 60,
        inactive_projects_delete_after_months: 2,
        inactive_projects_min_size_mb: 0,
        inactive_projects_send_warning_email_after_months: 1,
        issues_create_limit: 0,
        pipeline_limit_per_project_user_sha: 0,
        in_product_marketing_emails_enabled: true,
        invisible_captcha_enabled: false,
        keep_latest_artifact: true,
        password_authentication_enabled_for_git: true,
        password_authentication_enabled_for_web: true,
        diagram_renderer_a_enabled: false,
        hashed_storage_enabled: true,
        housekeeping_bitmaps_enabled: true,
        domain_allowlist: null,
        restricted_visibility_levels: [],
        rsa_key_restriction: 0,
        enabled_git_access_protocol: null,
        external_authorization_service_timeout: 0.5,
        polling_interval_multiplier: '1.0',
        repository_storages_weighted: { default: 100 },
        asset_proxy_allowlist: ['anvil.test'],
        asset_proxy_whitelist: ['anvil.test'],
        commit_email_hostname: 'users.noreply.anvil.test',
        spamfilter_api_key: null,
        external_pipeline_validation_service_token: null,
        searchengine_namespace_ids: [],
      };
      for (const [k, v] of Object.entries(defaults)) assert.deepEqual(b[k], v, k);
      for (const k of HIDDEN_SECRETS) assert.equal(k in b, false);
    });

    it('PUT via the query string coerces each type', async () => {
      const r = await put(
        'signup_enabled=false&default_projects_limit=42&polling_interval_multiplier=1.5&after_sign_up_text=hi%20there' +
          '&domain_denylist=a.com,*.b.org&searchengine_project_ids=3,1&repository_storages_weighted[default]=50' +
          '&default_project_visibility=internal&restricted_visibility_levels=public,10',
      );
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.body.signup_enabled, false);
      assert.equal(r.body.default_projects_limit, 42);
      assert.equal(r.body.polling_interval_multiplier, '1.5');
      assert.equal(r.body.after_sign_up_text, 'hi there');
      assert.deepEqual(r.body.domain_denylist, ['a.com', '*.b.org']);
      assert.deepEqual(r.body.searchengine_project_ids, [3, 1]);
      assert.deepEqual(r.body.repository_storages_weighted, { default: 50 });
      assert.equal(r.body.default_project_visibility, 'internal');
      assert.deepEqual(r.body.restricted_visibility_levels, ['public', 'internal']);
      // and it was stored: a fresh GET shows the same
      const g = await current();
      assert.equal(g.default_projects_limit, 42);
      assert.deepEqual(g.domain_denylist, ['a.com', '*.b.org']);
      assert.ok(g.updated_at >= g.created_at);
    });

    it('PUT via a JSON body coerces each type', async () => {
      const r = await put('', {
        signup_enabled: true,
        default_projects_limit: '7',
        external_authorization_service_timeout: 2.25,
        help_page_text: 'Ask us',
        disabled_oauth_sign_in_sources: ['github', 'saml'],
        searchengine_namespace_ids: [5, '6'],
        repository_storages_weighted: { default: 100 },
        default_branch_protection: 1,
        first_day_of_week: 6,
        enabled_git_access_protocol: 'ssh',
        import_sources: ['git', 'manifest'],
      });
      assert.equal(r.status, 200, r.text);
      const b = r.body;
      assert.equal(b.signup_enabled, true);
      assert.equal(b.default_projects_limit, 7);
      assert.equal(b.external_authorization_service_timeout, 2.25);
      assert.equal(b.help_page_text, 'Ask us');
      assert.deepEqual(b.disabled_oauth_sign_in_sources, ['github', 'saml']);
      assert.deepEqual(b.searchengine_namespace_ids, [5, 6]);
      assert.equal(b.default_branch_protection, 1);
      assert.equal(b.first_day_of_week, 6);
      assert.equal(b.enabled_git_access_protocol, 'ssh');
      assert.deepEqual(b.import_sources, ['git', 'manifest']);
      // `nil` means both protocols again
      assert.equal((await put('enabled_git_access_protocol=nil')).body.enabled_git_access_protocol, null);
    });

    it('400 with the parameter error for a wrong type, and when no setting is given', async () => {
      const r = await put('default_projects_limit=lots');
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { error: 'default_projects_limit is invalid' });
      const none = await put('', {});
      assert.equal(none.status, 400);
      assert.match(none.body.error, /^admin_mode, .* are missing, at least one parameter must be provided$/);
    });

    it('enum parameters refuse other values with "does not have a valid value"', async () => {
      for (const [q, name] of [
        ['default_branch_protection=3', 'default_branch_protection'],
        ['default_project_visibility=secret', 'default_project_visibility'],
        ['default_project_creation=5', 'default_project_creation'],
        ['enabled_git_access_protocol=ftp', 'enabled_git_access_protocol'],
        ['rsa_key_restriction=512', 'rsa_key_restriction'],
        ['import_sources=git,svn', 'import_sources'],
      ]) {
        const r = await put(q);
        assert.equal(r.status, 400, q);
        assert.deepEqual(r.body, { error: `${name} does not have a valid value` }, q);
      }
      assert.equal((await put('rsa_key_restriction=-1')).body.rsa_key_restriction, -1);
      assert.equal((await put('rsa_key_restriction=0')).status, 200);
    });

    it('ranges and model enums answer {"message": {field: [...]}}', async () => {
      const cases: [string, Record<string, string[]>][] = [
        ['deletion_adjourned_period=0', { deletion_adjourned_period: ['must be greater than or equal to 1'] }],
        ['deletion_adjourned_period=91', { deletion_adjourned_period: ['must be less than or equal to 90'] }],
        ['external_authorization_service_timeout=0', { external_authorization_service_timeout: ['must be greater than or equal to 0.001'] }],
        ['external_authorization_service_timeout=10.5', { external_authorization_service_timeout: ['must be less than or equal to 10'] }],
        ['first_day_of_week=2', { first_day_of_week: ['is not included in the list'] }],
        ['max_attachment_size=0', { max_attachment_size: ['must be greater than 0'] }],
        ['housekeeping_incremental_repack_period=100', { housekeeping_full_repack_period: ['must be greater than or equal to 100'] }],
        ['repostorage_timeout_fast=100', { repostorage_timeout_fast: ['must be less than or equal to 55'], repostorage_timeout_medium: ['must be greater than or equal to 100'] }],
        ['inactive_projects_send_warning_email_after_months=2', { inactive_projects_send_warning_email_after_months: ['must be less than 2'] }],
        ['restricted_visibility_levels=hidden', { restricted_visibility_levels: ["'hidden' is not a valid visibility level"] }],
        ['repository_storages_weighted[default]=101', { repository_storages_weighted: ["value for 'default' must be between 0 and 100"] }],
        ['repository_storages=elsewhere', { repository_storages: ["can't include: elsewhere"] }],
        ['home_page_url=not%20a%20url', { home_page_url: ['must be a valid URL'] }],
        ['abuse_notification_email=nobody', { abuse_notification_email: ['is invalid'] }],
        ['archive_builds_in_human_readable=3%20hours', { archive_builds_in_human_readable: ['must be at least 1 day'] }],
        ['default_artifacts_expire_in=soonish', { default_artifacts_expire_in: ['is not a correct duration'] }],
        ['geo_node_allowed_ips=10.0.0.0/8,nope', { geo_node_allowed_ips: ["'nope' is not a valid IP address"] }],
      ];
      for (const [q, messages] of cases) {
        const r = await put(q);
        assert.equal(r.status, 400, q);
        assert.deepEqual(r.body, { message: messages }, q);
      }
      // the edges themselves are valid
      const ok = await put('deletion_adjourned_period=90&external_authorization_service_timeout=0.001&archive_builds_in_human_readable=2%20days');
      // the one duration parser: joining words, and `0` (no expiry) as the reference's admin form offers it
      for (const value of ['1 day with 2 hours', '2 weeks 3 days', '0']) {
        const d = await put(`default_artifacts_expire_in=${encodeURIComponent(value)}`);
        assert.deepEqual([d.status, d.body.default_artifacts_expire_in], [200, value], value);
      }
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.deletion_adjourned_period, 90);
      assert.equal(ok.body.external_authorization_service_timeout, 0.001);
      assert.equal((await put('deletion_adjourned_period=1')).body.deletion_adjourned_period, 1);
    });

    it('an invalid PUT changes nothing, not even its valid parts', async () => {
      const before = await current();
      const r = await put('signup_enabled=false&default_projects_limit=5&deletion_adjourned_period=500&spamfilter_api_key=k');
      assert.equal(r.status, 400);
      const now = await current();
      assert.deepEqual(now, before);
      const row = await rawRow();
      assert.equal(row.updated_at, before.updated_at);
    });

    it('toggles that need settings in the same request answer "x is missing"', async () => {
      const cases: [string, string][] = [
        ['spamfilter_enabled=true', 'spamfilter_api_key is missing'],
        ['housekeeping_enabled=true', 'housekeeping_full_repack_period is missing, housekeeping_gc_period is missing, housekeeping_incremental_repack_period is missing'],
        ['housekeeping_enabled=true&housekeeping_full_repack_period=50&housekeeping_gc_period=200', 'housekeeping_incremental_repack_period is missing'],
        ['diagram_renderer_a_enabled=true', 'diagram_renderer_a_url is missing'],
        ['diagram_renderer_b_enabled=true', 'diagram_renderer_b_url is missing'],
        ['mailprovider_events_enabled=true', 'mailprovider_signing_key is missing'],
        [
          'managedcluster_integration_enabled=true&managedcluster_account_id=1',
          'managedcluster_access_key_id is missing, managedcluster_secret_access_key is missing',
        ],
      ];
      for (const [q, error] of cases) {
        const r = await put(q);
        assert.equal(r.status, 400, q);
        assert.deepEqual(r.body, { error }, q);
      }
      // given, but blank: the model refuses
      const blank = await put('spamfilter_enabled=true&spamfilter_api_key=');
      assert.deepEqual(blank.body, { message: { spamfilter_api_key: ["can't be blank"] } });
      // switching off needs nothing
      assert.equal((await put('housekeeping_enabled=false')).body.housekeeping_enabled, false);
      const on = await put('', { spamfilter_enabled: true, spamfilter_api_key: 'abc123', diagram_renderer_a_enabled: true, diagram_renderer_a_url: 'https://render.example' });
      assert.equal(on.status, 200, on.text);
      assert.equal(on.body.spamfilter_enabled, true);
      assert.equal(on.body.diagram_renderer_a_enabled, true);
      const hk = await put('housekeeping_enabled=true&housekeeping_full_repack_period=60&housekeeping_gc_period=300&housekeeping_incremental_repack_period=20');
      assert.equal(hk.status, 200, hk.text);
      assert.equal(hk.body.housekeeping_gc_period, 300);
    });

    it('toggles that need stored settings refuse to turn on without them', async () => {
      assert.deepEqual((await put('', { domain_denylist: [] })).body.domain_denylist, []); // an earlier case set one
      const cases: [string, Record<string, string[]>][] = [
        ['domain_denylist_enabled=true', { domain_denylist: ['Domain denylist cannot be empty if denylist is enabled.'] }],
        ['enforce_terms=true', { terms: ["can't be blank"] }],
        [
          'external_authorization_service_enabled=true',
          { external_authorization_service_default_label: ["can't be blank"], external_authorization_service_url: ["can't be blank"] },
        ],
        ['asset_proxy_enabled=true&asset_proxy_url=https://proxy.example', { asset_proxy_secret_key: ["can't be blank"] }],
        ['external_auth_client_cert=CERT', { external_auth_client_key: ["can't be blank"] }],
        ['external_auth_client_key=KEY', { external_auth_client_cert: ["can't be blank"] }],
        ['delayed_group_deletion=false&delayed_project_deletion=true', { delayed_project_deletion: ['can only be enabled when delayed_group_deletion is enabled'] }],
      ];
      for (const [q, messages] of cases) {
        const r = await put(q);
        assert.equal(r.status, 400, q);
        assert.deepEqual(r.body, { message: messages }, q);
      }
      // with what they need, they turn on; what was stored before counts
      await put('domain_denylist=spam.example');
      assert.equal((await put('domain_denylist_enabled=true')).body.domain_denylist_enabled, true);
      const ext = await put('external_authorization_service_enabled=true&external_authorization_service_url=https://auth.example&external_authorization_service_default_label=default');
      assert.equal(ext.status, 200, ext.text);
      const pair = await put('', { external_auth_client_cert: 'CERT', external_auth_client_key: 'KEY' });
      assert.equal(pair.status, 200, pair.text);
      assert.equal(pair.body.external_auth_client_cert, 'CERT');
      assert.equal(pair.body.external_auth_client_key, MASK);
      // clearing the required value while the toggle is on is refused too
      const clear = await put('', { domain_denylist: [] });
      assert.deepEqual(clear.body, { message: { domain_denylist: ['Domain denylist cannot be empty if denylist is enabled.'] } });
      assert.equal((await put('delayed_project_deletion=true')).body.delayed_project_deletion, true);
      // turning group deletion off while project deletion is on is refused as well
      assert.equal((await put('delayed_group_deletion=false')).status, 400);
    });

    it('deprecated names stay in step with their replacements', async () => {
      let r = await put('asset_proxy_whitelist=a.example,b.example');
      assert.deepEqual(r.body.asset_proxy_allowlist, ['a.example', 'b.example', 'anvil.test']);
      assert.deepEqual(r.body.asset_proxy_whitelist, r.body.asset_proxy_allowlist);
      r = await put('', { asset_proxy_allowlist: ['c.example'] });
      assert.deepEqual(r.body.asset_proxy_whitelist, ['c.example', 'anvil.test']);

      r = await put('allow_local_requests_from_hooks_and_services=true');
      assert.equal(r.body.allow_local_requests_from_web_hooks_and_services, true);
      r = await put('allow_local_requests_from_web_hooks_and_services=false');
      assert.equal(r.body.allow_local_requests_from_hooks_and_services, false);

      r = await put('admin_notification_email=abuse@example.com');
      assert.equal(r.body.abuse_notification_email, 'abuse@example.com');
      assert.equal(r.body.admin_notification_email, 'abuse@example.com');

      r = await put('housekeeping_bitmaps_enabled=false&hashed_storage_enabled=false');
      assert.equal(r.status, 200);
      assert.equal(r.body.housekeeping_bitmaps_enabled, true);
      assert.equal(r.body.hashed_storage_enabled, true);

      r = await put('user_email_lookup_limit=15');
      assert.equal(r.body.user_email_lookup_limit, 15);
      assert.equal(r.body.search_rate_limit, 15);
      r = await put('search_rate_limit=40');
      assert.equal(r.body.search_rate_limit, 40);

      r = await put('performance_bar_allowed_group_path=ops');
      assert.equal(r.body.performance_bar_enabled, true);
      r = await put('performance_bar_enabled=false');
      assert.equal(r.body.performance_bar_allowed_group_path, null);
      assert.equal(r.body.performance_bar_enabled, false);
    });

    it('secrets are stored encrypted, shown only as a mask, and a written-back mask keeps them', async () => {
      const secrets: Record<string, string> = {
        spamfilter_api_key: 'spam-key-PLAIN-1',
        asset_proxy_secret_key: 'asset-secret-PLAIN-2',
        searchengine_aws_secret_access_key: 'aws-secret-PLAIN-3',
        searchengine_password: 'es-password-PLAIN-4',
        managedcluster_secret_access_key: 'eks-secret-PLAIN-5',
        external_auth_client_key_pass: 'pass-PLAIN-6',
        external_pipeline_validation_service_token: 'validation-token-PLAIN-7',
        mailprovider_signing_key: 'signing-PLAIN-8',
      };
      const r = await put('', secrets);
      assert.equal(r.status, 200, r.text);
      for (const k of Object.keys(secrets)) {
        if (HIDDEN_SECRETS.includes(k)) assert.equal(k in r.body, false, k);
        else assert.equal(r.body[k], MASK, k);
      }
      assert.ok(!r.text.includes('PLAIN'));
      const row = await rawRow();
      for (const v of Object.values(secrets)) assert.ok(!row.data.includes(v), `${v} stored in clear`);
      assert.match(JSON.parse(row.data).spamfilter_api_key, /^v1:/);
      // services get the clear value
      const s = await getSettings(t.c);
      assert.equal(s.external_pipeline_validation_service_token, 'validation-token-PLAIN-7');
      assert.equal(s.asset_proxy_secret_key, 'asset-secret-PLAIN-2');
      // a client writing back what it read does not replace the secret with the mask
      await put('', { spamfilter_api_key: MASK, signup_enabled: true });
      assert.equal((await getSettings(t.c)).spamfilter_api_key, 'spam-key-PLAIN-1');
      // GET never shows them either
      const g = await t.get(URL_);
      assert.ok(!g.text.includes('PLAIN'));
    });

    it('a change on one node is visible at once there, and on another node within its re-check interval', async () => {
      const other = await startSecondNode(t);
      try {
        setSettingsRecheckInterval(other.c, 100);
        const before = await getSettings(other.c); // warms the other node's cache
        const target = before.max_attachment_size + 1;
        const r = await put(`max_attachment_size=${target}`);
        assert.equal(r.status, 200);
        assert.equal((await getSettings(t.c)).max_attachment_size, target); // the writer: at once
        const started = Date.now();
        let seen = (await getSettings(other.c)).max_attachment_size;
        while (seen !== target && Date.now() - started < 3000) {
          await new Promise((res) => setTimeout(res, 20));
          seen = (await getSettings(other.c)).max_attachment_size;
        }
        assert.equal(seen, target);
        // the other node's API answers from the database, and its writes reach the first node too
        const g = await other.app.inject({ method: 'GET', url: URL_, headers: { 'private-token': t.rootToken } });
        assert.equal(JSON.parse(g.body).max_attachment_size, target);
        setSettingsRecheckInterval(t.c, 100);
        const w = await other.app.inject({ method: 'PUT', url: `${URL_}?max_attachment_size=${target + 1}`, headers: { 'private-token': t.rootToken } });
        assert.equal(w.statusCode, 200);
        await new Promise((res) => setTimeout(res, 150));
        assert.equal((await getSettings(t.c)).max_attachment_size, target + 1);
      } finally {
        setSettingsRecheckInterval(t.c, 5000);
        await other.close();
      }
    });

    it('concurrent writes from two nodes to different settings all land (no lost update)', async () => {
      const other = await startSecondNode(t);
      try {
        const names = ['max_export_size', 'max_import_size', 'local_markdown_version', 'terminal_max_session_time', 'push_event_hooks_limit', 'push_event_activities_limit'];
        const results = await Promise.all(
          names.map((n, i) => {
            const url = `${URL_}?${n}=${100 + i}`;
            const headers = { 'private-token': t.rootToken };
            return (i % 2 ? other.app : t.app).inject({ method: 'PUT', url, headers });
          }),
        );
        for (const r of results) assert.equal(r.statusCode, 200, r.body);
        const g = await current();
        names.forEach((n, i) => assert.equal(g[n], 100 + i, n));
      } finally {
        await other.close();
      }
    });

    it('is for administrators only: 401 without a token, 403 for others, and a read_api token may only read', async () => {
      assert.equal((await put('signup_enabled=true')).status, 200);
      for (const method of ['GET', 'PUT']) {
        const anon = await t.request(method, `${URL_}?signup_enabled=false`, { token: null });
        assert.equal(anon.status, 401);
        assert.deepEqual(anon.body, { message: '401 Unauthorized' });
        const u = await t.createUser();
        const r = await t.request(method, `${URL_}?signup_enabled=false`, { token: u.token });
        assert.equal(r.status, 403);
        assert.deepEqual(r.body, { message: '403 Forbidden' });
      }
      const reader = await t.createUser({ admin: true, scopes: ['read_api'] });
      assert.equal((await t.get(URL_, reader.token)).status, 200);
      const w = await t.request('PUT', `${URL_}?signup_enabled=false`, { token: reader.token });
      assert.equal(w.status, 403);
      assert.equal(w.body.error, 'insufficient_scope');
      assert.equal((await current()).signup_enabled, true); // none of the refused writes landed
    });
  });
}
