"""Outgoing webhooks (a Lectern extension, /api/v3/projects/<slug>/webhooks/)
against a real `lectern serve` with a build worker and a loopback receiver:
CRUD with validation and permissions; a generated secret shown once at
creation and a given one never, and neither in any answer or the server's
log; the service's default payload and template variables; X-Hub-Signature
the hex HMAC-SHA256 of the body, checked by the receiver; retries when the
receiver answers 500, then success; a receiver that never answers raising
the project's notification; and the deliveries listed."""
import hashlib
import hmac
import http.server
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))

import fixtures  # noqa: E402
from lectern_test import ServerTestCase, main  # noqa: E402

TIMEOUT = 60
PASSING = fixtures.commands_config(
    "mkdir -p $READTHEDOCS_OUTPUT/html",
    "echo ok > $READTHEDOCS_OUTPUT/html/index.html")
WEBHOOK_KEYS = {"_links", "created", "events", "id", "modified", "payload",
                "project", "url"}
DELIVERY_KEYS = {"attempts", "build", "created", "error", "event", "id",
                 "modified", "next_attempt", "payload", "state", "status_code"}
FORBIDDEN = "You do not have permission to perform this action."
UNAUTHENTICATED = "Authentication credentials were not provided."
ALL_EVENTS = ["build:triggered", "build:passed", "build:failed"]


class Receiver:
    """A loopback HTTP server recording each POST; `plan` maps a path to
    the statuses it answers in turn (200 once they run out)."""

    def __init__(self):
        self.requests = []
        self.plan = {}
        self.hold = {}  # path: a threading.Event set to let it answer
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                held = receiver.hold.get(self.path)
                if held is not None:
                    held.wait(TIMEOUT)
                with receiver.lock:
                    statuses = receiver.plan.get(self.path, [])
                    status = statuses.pop(0) if statuses else 200
                    receiver.requests.append((self.path, dict(self.headers), body))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def received(self, path):
        with self.lock:
            return [(h, b) for p, h, b in self.requests if p == path]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class OutgoingWebhooksTest(ServerTestCase):
    # A receiver gets longer to answer than any test holds an answer, so
    # a held delivery is never timed out whatever the machine's speed.
    SERVER_ARGS = ("--build-timeout", "30", "--workers", "1",
                   "--webhook-backoff", "50", "--webhook-timeout", "120000")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.receiver = Receiver()
        s = cls.server
        cls.alice = s.token("alice")
        cls.bob = s.token("bob")
        cls.answers = []  # every answer body, checked for secrets
        cls.repo = fixtures.make_repo(PASSING)
        r = s.post("/api/v3/projects/", {"name": "Hooked",
                                         "repository": {"url": "file://" + cls.repo}},
                   token=cls.alice)
        assert r.status == 201, r
        cls.slug = r.json["slug"]
        cls.base = "/api/v3/projects/%s/webhooks/" % cls.slug
        cls.first_build = cls.wait_build(0)

    @classmethod
    def tearDownClass(cls):
        cls.receiver.close()
        super().tearDownClass()

    @classmethod
    def wait_build(cls, after):
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            builds = cls.server.get("/api/v3/projects/%s/builds/" % cls.slug,
                                    token=cls.alice).json["results"]
            done = [b for b in builds if b["id"] > after
                    and b["state"]["code"] in ("finished", "cancelled")]
            if done:
                return done[0]
            time.sleep(0.1)
        raise AssertionError("no build finished: %r" % builds)

    def call(self, method, path, body=None, token=None):
        r = self.server.request(method, path, body=body,
                                token=self.alice if token is None else token or None)
        self.answers.append(r.body)
        return r

    def create(self, path, **fields):
        body = {"url": self.receiver.url + path, "events": ALL_EVENTS}
        body.update(fields)
        r = self.call("POST", self.base, body)
        self.assertStatus(r, 201)
        return r.json

    def build(self):
        r = self.call("POST", "/api/v3/projects/%s/versions/latest/builds/" % self.slug)
        self.assertStatus(r, 202)
        return self.wait_build(r.json["build"]["id"] - 1)

    def wait_received(self, path, n):
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            got = self.receiver.received(path)
            if len(got) >= n:
                return got
            time.sleep(0.05)
        self.fail("%s got %d deliveries, wanted %d" % (path, len(got), n))

    def deliveries(self, hook):
        r = self.call("GET", "%s%d/deliveries/" % (self.base, hook["id"]))
        self.assertStatus(r, 200)
        for d in r.json["results"]:
            self.assertEqual(set(d), DELIVERY_KEYS)
        return r.json["results"]

    def wait_deliveries(self, hook, pred):
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            got = self.deliveries(hook)
            if pred(got):
                return got
            time.sleep(0.05)
        self.fail("deliveries never matched: %r" % got)

    def assertSigned(self, headers, body, secret):
        expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        self.assertEqual(headers["X-Hub-Signature"], expected)
        self.assertEqual(headers["Content-Type"], "application/json")

    # CRUD and secrets.

    def test_crud_and_secret_shown_once(self):
        hook = self.create("/crud")
        secret = hook.pop("secret")
        self.assertRegex(secret, r"^[A-Za-z0-9]{32}$")
        self.assertEqual(set(hook), WEBHOOK_KEYS)
        self.assertEqual(hook["events"], ALL_EVENTS)
        self.assertIsNone(hook["payload"])
        self.assertEqual(hook["project"], self.slug)
        url = "%s%d/" % (self.base, hook["id"])
        self.assertEqual(hook["_links"]["_self"], self.server.base + url)
        got = self.call("GET", url)
        self.assertStatus(got, 200)
        self.assertSortedKeys(got.body)
        self.assertEqual(got.json, hook)
        listed = self.call("GET", self.base).json
        self.assertIn(hook, listed["results"])
        r = self.call("PATCH", url, {"events": ["build:failed"],
                                     "payload": '{"e": "{{ event }}"}'})
        self.assertStatus(r, 200)
        self.assertEqual(r.json["events"], ["build:failed"])
        self.assertEqual(r.json["payload"], '{"e": "{{ event }}"}')
        self.assertEqual(r.json["url"], hook["url"])
        r = self.call("PATCH", url, {"secret": "new-one"})
        self.assertStatus(r, 400)
        # A given secret is never shown, not even at creation.
        given = self.create("/given", secret="given-secret-42")
        self.assertNotIn("secret", given)
        self.assertStatus(self.call("DELETE", url), 204)
        self.assertStatus(self.call("GET", url), 404)
        self.assertStatus(self.call("DELETE", url), 404)
        self.assertStatus(self.call("DELETE", "%s%d/" % (self.base, given["id"])), 204)
        self.check_no_secret(secret)
        self.check_no_secret("given-secret-42")

    def test_validation(self):
        cases = [
            ({"events": ALL_EVENTS}, "url"),
            ({"url": "ftp://x/", "events": ALL_EVENTS}, "url"),
            ({"url": "not a url", "events": ALL_EVENTS}, "url"),
            ({"url": "http://127.0.0.1/" + "a" * 600, "events": ALL_EVENTS}, "url"),
            ({"url": "http://127.0.0.1/"}, "events"),
            ({"url": "http://127.0.0.1/", "events": []}, "events"),
            ({"url": "http://127.0.0.1/", "events": ["build:exploded"]}, "events"),
            ({"url": "http://127.0.0.1/", "events": "build:passed"}, "events"),
            ({"url": "http://127.0.0.1/", "events": ALL_EVENTS, "payload": "{nope"},
             "payload"),
            ({"url": "http://127.0.0.1/", "events": ALL_EVENTS, "payload": "[1]"},
             "payload"),
            ({"url": "http://127.0.0.1/", "events": ALL_EVENTS, "secret": ""},
             "secret"),
            ({"url": "http://127.0.0.1/", "events": ALL_EVENTS, "secret": "a b"},
             "secret"),
        ]
        for body, field in cases:
            r = self.call("POST", self.base, body)
            self.assertStatus(r, 400)
            self.assertEqual(list(r.json), [field], (body, r.json))
        self.assertEqual(self.call("GET", self.base).json["count"],
                         len(self.call("GET", self.base).json["results"]))

    def test_permissions(self):
        self.assertDetail(self.call("GET", self.base, token=""), 401, UNAUTHENTICATED)
        self.assertDetail(self.call("GET", self.base, token=self.bob), 403, FORBIDDEN)
        self.assertDetail(self.call("POST", self.base,
                                    {"url": "http://127.0.0.1/", "events": ALL_EVENTS},
                                    token=self.bob), 403, FORBIDDEN)

    # Deliveries.

    def test_default_payload_signed_and_events(self):
        hook = self.create("/default")
        secret = hook["secret"]
        build = self.build()
        got = self.wait_received("/default", 2)
        events = [h["X-RTD-Event"] for h, _ in got]
        self.assertEqual(events, ["build:triggered", "build:passed"])
        for headers, body in got:
            self.assertSigned(headers, body, secret)
            payload = json.loads(body)
            self.assertEqual(set(payload), {"name", "slug", "build"})
            self.assertEqual(payload["slug"], self.slug)
            self.assertEqual(set(payload["build"]),
                             {"id", "commit", "state", "success", "date"})
            self.assertEqual(payload["build"]["id"], build["id"])
            self.assertRegex(payload["build"]["date"],
                             r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
        self.assertEqual(json.loads(got[1][1])["build"]["state"], "finished")
        self.assertIs(json.loads(got[1][1])["build"]["success"], True)
        listed = self.wait_deliveries(hook, lambda d: len(d) == 2 and all(
            x["state"] == "delivered" for x in d))
        self.assertEqual([d["event"] for d in listed],
                         ["build:passed", "build:triggered"])
        self.assertEqual(listed[0]["status_code"], 200)
        self.assertEqual(listed[0]["build"], build["id"])
        self.assertEqual(listed[0]["attempts"], 1)
        self.assertIsNone(listed[0]["next_attempt"])
        self.assertEqual(listed[0]["payload"].encode(), got[1][1])
        self.call("DELETE", "%s%d/" % (self.base, hook["id"]))
        self.check_no_secret(secret)

    def test_template_payload(self):
        template = json.dumps({
            "event": "{{ event }}", "build": "{{build.id}}",
            "project": "{{ project.slug }}", "name": "{{ project.name }}",
            "version": "{{ version.slug }}", "commit": "{{ build.commit }}",
            "url": "{{ build.url }}", "docs": "{{ build.docs_url }}",
            "start": "{{ build.start_date }}", "org": "{{ organization.slug }}",
        })
        hook = self.create("/template", events=["build:passed"], payload=template,
                           secret="template-secret")
        build = self.build()
        headers, body = self.wait_received("/template", 1)[0]
        self.assertSigned(headers, body, "template-secret")
        p = json.loads(body)
        self.assertEqual(p["event"], "build:passed")
        self.assertEqual(p["build"], str(build["id"]))
        self.assertEqual(p["project"], self.slug)
        self.assertEqual(p["name"], "Hooked")
        self.assertEqual(p["version"], "latest")
        self.assertRegex(p["commit"], r"^[0-9a-f]{40}$")
        self.assertTrue(p["url"].endswith("/api/v3/projects/%s/builds/%d/"
                                          % (self.slug, build["id"])), p["url"])
        self.assertTrue(p["docs"].endswith("/en/latest/"), p["docs"])
        self.assertRegex(p["start"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
        self.assertEqual(p["org"], "")
        self.call("DELETE", "%s%d/" % (self.base, hook["id"]))

    def test_retries_after_500_then_succeeds(self):
        self.receiver.plan["/flaky"] = [500, 500]
        hook = self.create("/flaky", events=["build:passed"])
        self.build()
        got = self.wait_received("/flaky", 3)
        # The same bytes each time, so the signature holds on every try.
        self.assertEqual(len({b for _, b in got}), 1)
        for headers, body in got:
            self.assertSigned(headers, body, hook["secret"])
        listed = self.wait_deliveries(hook, lambda d: d and d[0]["state"] == "delivered")
        self.assertEqual(listed[0]["attempts"], 3)
        self.assertEqual(listed[0]["status_code"], 200)
        self.assertIsNone(listed[0]["error"])
        self.call("DELETE", "%s%d/" % (self.base, hook["id"]))

    def test_slow_receiver_never_blocks_a_build(self):
        # The receiver holds every answer until the build has finished: a
        # build that waited for its build:triggered delivery would never
        # finish (the receiver gets two minutes to answer).
        release = self.receiver.hold["/slow"] = threading.Event()
        try:
            hook = self.create("/slow", events=["build:triggered", "build:passed"])
            build = self.build()
            self.assertTrue(build["success"], build)
            self.assertEqual(self.receiver.received("/slow"), [])
        finally:
            release.set()
        got = self.wait_received("/slow", 2)
        self.assertEqual([h["X-RTD-Event"] for h, _ in got],
                         ["build:triggered", "build:passed"])
        # Each answered on its first try: nothing was cut short.
        listed = self.wait_deliveries(hook, lambda d: len(d) == 2 and all(
            x["state"] == "delivered" for x in d))
        self.assertEqual([x["attempts"] for x in listed], [1, 1])
        self.call("DELETE", "%s%d/" % (self.base, hook["id"]))

    def test_receiver_down_raises_notification(self):
        # Nothing listens on the receiver's port once it is closed.
        dead = Receiver()
        url = dead.url + "/down"
        dead.close()
        r = self.call("POST", self.base, {"url": url, "events": ["build:passed"]})
        self.assertStatus(r, 201)
        hook = r.json
        start = time.time()
        self.build()
        listed = self.wait_deliveries(hook, lambda d: d and d[0]["state"] == "failed")
        self.assertEqual(listed[0]["attempts"], 5)
        self.assertIsNone(listed[0]["status_code"])
        self.assertTrue(listed[0]["error"])
        # 50 ms doubling: 50 + 100 + 200 + 400 ms between the five tries.
        self.assertGreater(time.time() - start, 0.7)
        notes = self.call("GET", "/api/v3/projects/%s/notifications/" % self.slug).json
        ids = [n["message"]["id"] for n in notes["results"]]
        self.assertIn("project:webhook:failing", ids)
        n = notes["results"][ids.index("project:webhook:failing")]
        self.assertNotIn(url, json.dumps(n))
        self.assertEqual(n["state"], "unread")
        self.call("DELETE", "%s%d/" % (self.base, hook["id"]))

    def check_no_secret(self, secret):
        for body in self.answers:
            if b'"secret"' in body:
                continue  # the one creation answer that shows it
            self.assertNotIn(secret.encode(), body)
        shown = [b for b in self.answers if secret.encode() in b]
        self.assertLessEqual(len(shown), 1)
        self.assertNotIn(secret, self.server.log())


if __name__ == "__main__":
    main()
