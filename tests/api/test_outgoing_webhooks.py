"""Outgoing webhooks (a Lectern extension, /api/v3/projects/<slug>/webhooks/)
against a real `lectern serve` with a build worker and a loopback receiver:
CRUD with validation and permissions; a generated secret shown once at
creation and a given one never, and neither in any answer or the server's
log; the service's default payload and template variables; X-Hub-Signature
the hex HMAC-SHA256 of the body, checked by the receiver; retries when the
receiver answers 500, then success; a receiver that never answers raising
the project's notification; and the deliveries listed.

The address rule (issue 27): without `--webhook-allow` no delivery
reaches loopback, however the URL writes it (127.0.0.1, localhost,
[::ffff:127.0.0.1], 0.0.0.0, [::1], 127.1), and a listening port and a
closed one give the same refused outcome; with it, only the networks it
names, redirects never followed. A delivery goes to the URL it was made
for even when the webhook's URL changes before its retry. Deliveries run
side by side: six slow receivers of one project hold up another project's
delivery by less than one deadline; a project has at most ten webhooks."""
import datetime
import hashlib
import hmac
import http.server
import json
import os
import socket
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

    def __init__(self, host="127.0.0.1", redirect=None):
        self.requests = []
        self.arrived = []  # paths, as soon as a request's body is read
        self.plan = {}
        self.hold = {}  # path: a threading.Event set to let it answer
        self.lock = threading.Lock()
        receiver = self

        class Server(http.server.ThreadingHTTPServer):
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.arrived.append(self.path)
                if redirect:
                    # Every answer sends the client elsewhere.
                    with receiver.lock:
                        receiver.requests.append((self.path, dict(self.headers), body))
                    self.send_response(307)
                    self.send_header("Location", redirect + self.path)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
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

        self.httpd = Server((host, 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = "http://%s:%d" % ("[%s]" % host if ":" in host else host, self.port)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def received(self, path):
        with self.lock:
            return [(h, b) for p, h, b in self.requests if p == path]

    def close(self):
        for held in list(self.hold.values()):
            held.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class OutgoingWebhooksTest(ServerTestCase):
    # A receiver gets longer to answer than any test holds an answer, so
    # a held delivery is never timed out whatever the machine's speed.
    # The receivers are on loopback, which an administrator must allow.
    SERVER_ARGS = ("--build-timeout", "30", "--workers", "1",
                   "--webhook-backoff", "50", "--webhook-timeout", "120000",
                   "--webhook-allow", "127.0.0.0/8")

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

    def test_a_delivery_keeps_its_url(self):
        # The first try is held until the webhook points elsewhere, then
        # fails; its retry still goes where the delivery was made for.
        release = self.receiver.hold["/made-for"] = threading.Event()
        self.receiver.plan["/made-for"] = [500]
        hook = self.create("/made-for", events=["build:passed"])
        self.build()
        deadline = time.time() + TIMEOUT
        while "/made-for" not in self.receiver.arrived and time.time() < deadline:
            time.sleep(0.05)
        r = self.call("PATCH", "%s%d/" % (self.base, hook["id"]),
                      {"url": self.receiver.url + "/moved"})
        self.assertStatus(r, 200)
        release.set()
        listed = self.wait_deliveries(hook, lambda d: d and d[0]["state"] == "delivered")
        self.assertEqual(listed[0]["attempts"], 2)
        self.assertEqual(len(self.receiver.received("/made-for")), 2)
        self.assertEqual(self.receiver.received("/moved"), [])
        self.call("DELETE", "%s%d/" % (self.base, hook["id"]))

    def check_no_secret(self, secret):
        for body in self.answers:
            if b'"secret"' in body:
                continue  # the one creation answer that shows it
            self.assertNotIn(secret.encode(), body)
        shown = [b for b in self.answers if secret.encode() in b]
        self.assertLessEqual(len(shown), 1)
        self.assertNotIn(secret, self.server.log())


class HookCase(ServerTestCase):
    """A server with a build worker and a project whose builds pass."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.alice = cls.server.token("alice")
        cls.repo = fixtures.make_repo(PASSING)

    def project(self, name):
        r = self.server.post("/api/v3/projects/", {
            "name": name, "repository": {"url": "file://" + self.repo}}, token=self.alice)
        self.assertStatus(r, 201)
        slug = r.json["slug"]
        self.wait_build(slug, 0)
        return slug

    def hook(self, slug, url, events=("build:passed",)):
        r = self.server.post("/api/v3/projects/%s/webhooks/" % slug,
                             {"url": url, "events": list(events)}, token=self.alice)
        self.assertStatus(r, 201)
        return r.json

    def build(self, slug):
        r = self.server.post("/api/v3/projects/%s/versions/latest/builds/" % slug,
                             token=self.alice)
        self.assertStatus(r, 202)
        return r.json["build"]["id"]

    def wait_build(self, slug, after):
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            builds = self.server.get("/api/v3/projects/%s/builds/" % slug,
                                     token=self.alice).json["results"]
            done = [b for b in builds if b["id"] > after
                    and b["state"]["code"] in ("finished", "cancelled")]
            if done:
                return done[0]
            time.sleep(0.1)
        self.fail("no build of %s finished" % slug)

    def deliveries(self, slug, hook):
        r = self.server.get("/api/v3/projects/%s/webhooks/%d/deliveries/" % (slug, hook["id"]),
                            token=self.alice)
        self.assertStatus(r, 200)
        return r.json["results"]

    def wait_finished(self, slug, hooks, n=1):
        """Each hook's first n deliveries, once none of them is pending."""
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            got = [self.deliveries(slug, h) for h in hooks]
            if all(len(d) >= n and all(x["state"] != "pending" for x in d) for d in got):
                return got
            time.sleep(0.05)
        self.fail("deliveries still pending: %r" % got)


REFUSED = "refused: the address is not allowed"
FAILED = "failed: no answer from the receiver"


class DefaultAddressRuleTest(HookCase):
    """No --webhook-allow: loopback is refused however it is written, and
    what the deliveries list says never tells an open port from a closed
    one."""
    SERVER_ARGS = ("--workers", "1", "--webhook-backoff", "50",
                   "--webhook-timeout", "5000")

    def test_loopback_is_refused_however_written(self):
        receiver = Receiver()
        self.addCleanup(receiver.close)
        closed = Receiver()
        closed_port = closed.port
        closed.close()
        port = receiver.port
        urls = ["http://127.0.0.1:%d/plain" % port,
                "http://localhost:%d/name" % port,
                "http://[::ffff:127.0.0.1]:%d/mapped" % port,
                "http://0.0.0.0:%d/unspecified" % port,
                "http://127.1:%d/short" % port,
                "http://2130706433:%d/decimal" % port,
                "http://127.0.0.1:%d/closed" % closed_port]
        try:
            v6 = Receiver("::1")
            self.addCleanup(v6.close)
            urls.append("http://[::1]:%d/v6" % v6.port)
        except OSError:
            v6 = None
        slug = self.project("Refused")
        hooks = [self.hook(slug, u) for u in urls]
        self.build(slug)
        got = self.wait_finished(slug, hooks)
        for url, listed in zip(urls, got):
            d = listed[0]
            self.assertEqual((d["state"], d["status_code"], d["error"]),
                             ("failed", None, REFUSED), url)
            self.assertEqual(d["attempts"], 5, url)
        self.assertEqual(receiver.arrived, [])
        if v6:
            self.assertEqual(v6.arrived, [])
        # The project is told its webhook fails, naming no URL.
        notes = self.server.get("/api/v3/projects/%s/notifications/" % slug,
                                token=self.alice).json["results"]
        self.assertIn("project:webhook:failing", [n["message"]["id"] for n in notes])


class AllowedAddressRuleTest(HookCase):
    """--webhook-allow 127.0.0.1/32: that address is reached, the rest of
    loopback is not, a redirect is never followed, and a receiver that
    does not answer fails with the same words whether its port is closed
    or it is too slow (each of its five attempts waits the timeout: half a
    second, many times what a receiver here takes to answer)."""
    SERVER_ARGS = ("--workers", "1", "--webhook-backoff", "50",
                   "--webhook-timeout", "500", "--webhook-allow", "127.0.0.1/32")

    def test_only_the_allowed_network_and_no_redirects(self):
        allowed = Receiver()
        self.addCleanup(allowed.close)
        other = Receiver("127.0.0.2")
        self.addCleanup(other.close)
        to_other = Receiver(redirect=other.url)
        self.addCleanup(to_other.close)
        to_allowed = Receiver(redirect=allowed.url)
        self.addCleanup(to_allowed.close)
        closed = Receiver()
        closed_url = closed.url + "/closed"
        closed.close()
        allowed.hold["/slow"] = threading.Event()
        slug = self.project("Allowed")
        hooks = [self.hook(slug, allowed.url + "/ok"),
                 self.hook(slug, other.url + "/other"),
                 self.hook(slug, to_other.url + "/away"),
                 self.hook(slug, to_allowed.url + "/back"),
                 self.hook(slug, closed_url),
                 self.hook(slug, allowed.url + "/slow")]
        self.build(slug)
        ok, other_d, away, back, closed_d, slow = [d[0] for d in self.wait_finished(slug, hooks)]
        self.assertEqual((ok["state"], ok["status_code"]), ("delivered", 200))
        self.assertEqual((other_d["state"], other_d["error"]), ("failed", REFUSED))
        self.assertEqual(other.arrived, [])
        # The redirects were answered and not followed, whatever their
        # target.
        for d in (away, back):
            self.assertEqual((d["state"], d["status_code"]), ("failed", 307))
        self.assertEqual(len(to_other.arrived), 5)
        self.assertEqual(allowed.arrived.count("/away") + allowed.arrived.count("/back"), 0)
        self.assertEqual(closed_d["error"], FAILED)
        self.assertEqual(slow["error"], FAILED)
        self.assertEqual(closed_d["status_code"], slow["status_code"])


class FairnessTest(HookCase):
    """Six slow receivers of one project, each holding every delivery
    until its deadline, delay another project's delivery by less than one
    deadline; and a project has at most ten webhooks."""
    DEADLINE = 3.0
    SERVER_ARGS = ("--workers", "1", "--webhook-backoff", "50",
                   "--webhook-timeout", "3000", "--webhook-allow", "127.0.0.0/8")

    def test_slow_receivers_of_one_project_do_not_hold_up_another(self):
        slow = Receiver()
        self.addCleanup(slow.close)
        fast = Receiver()
        self.addCleanup(fast.close)
        hog = self.project("Hog")
        other = self.project("Other")
        for i in range(6):
            slow.hold["/slow%d" % i] = threading.Event()
            self.hook(hog, "%s/slow%d" % (slow.url, i),
                      events=("build:triggered", "build:passed"))
        fast_hook = self.hook(other, fast.url + "/fast", events=("build:triggered",))
        self.build(hog)
        deadline = time.time() + TIMEOUT
        while len(slow.arrived) < 4 and time.time() < deadline:
            time.sleep(0.05)
        self.assertGreaterEqual(len(slow.arrived), 4)
        self.build(other)
        d = self.wait_finished(other, [fast_hook])[0][0]
        self.assertEqual(d["state"], "delivered")
        waited = (parse_time(d["modified"]) - parse_time(d["created"])).total_seconds()
        self.assertLess(waited, self.DEADLINE)

    def test_webhooks_per_project_are_capped(self):
        slug = self.project("Capped")
        for i in range(10):
            self.hook(slug, "http://127.0.0.1:9/%d" % i)
        r = self.server.post("/api/v3/projects/%s/webhooks/" % slug,
                             {"url": "http://127.0.0.1:9/eleventh", "events": ALL_EVENTS},
                             token=self.alice)
        self.assertEqual((r.status, r.json), (400, [
            "This project has 10 webhooks, the most a project may have; "
            "delete one to add another."]))


def parse_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


if __name__ == "__main__":
    main()
