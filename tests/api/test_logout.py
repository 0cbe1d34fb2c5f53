"""The docs login's logout (issue 36, finding 9: a session lasted 14 days
with no way to end it): /_/logout/ on the API's host and on every docs
host shows a form to confirm, and its POST, under the login's CSRF rules,
ends the session server-side with its whole family, so that a copied
cookie stops working; revoking the token a session was logged in with,
or `lectern user logout`, ends it too (docs/serving.md)."""
import re
import urllib.parse

from lectern_test import ServerTestCase, Store, main

FORM = "application/x-www-form-urlencoded"


class LogoutTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.store = Store(cls.server)
        cls.alice = cls.server.token("alice")
        cls.server.import_project(cls.alice, "Main")
        cls.store.version("main", "secret", privacy="private")
        cls.store.publish("main", "secret", {"index.html": b"top secret"})

    def api(self):
        return "localhost:%d" % self.server.port

    def docs(self):
        return "main.localhost:%d" % self.server.port

    @staticmethod
    def cookie_of(r):
        return r.header("Set-Cookie").split(";")[0]

    def api_session(self, token):
        """Log in on the API's host as a browser does: its session cookie."""
        _, nonce, csrf = self.server.login_form(self.api())
        r = self.server.request(
            "POST", "/_/login/", host=self.api(),
            raw=urllib.parse.urlencode({"csrf_token": csrf, "token": token,
                                        "next": "/"}).encode(),
            headers={"Content-Type": FORM, "Cookie": nonce, "Origin": "http://" + self.api()})
        self.assertStatus(r, 302)
        return self.cookie_of(r)

    def docs_session(self, api_cookie):
        """From a session on the API's host, one on the docs host (the
        login's ticket, redeemed)."""
        r = self.server.get("/_/login/?next=/en/secret/&host=" + self.docs(), host=self.api(),
                            headers={"Cookie": api_cookie})
        self.assertStatus(r, 302)
        ticket = urllib.parse.urlsplit(r.header("Location"))
        r = self.server.get(ticket.path + "?" + ticket.query, host=self.docs())
        self.assertStatus(r, 302)
        return self.cookie_of(r)

    def reads_secret(self, docs_cookie):
        r = self.server.get("/en/secret/", host=self.docs(), headers={"Cookie": docs_cookie})
        return r.status == 200 and r.body == b"top secret"

    def logged_in_on_api(self, api_cookie):
        r = self.server.get("/_/logout/", host=self.api(), headers={"Cookie": api_cookie})
        self.assertStatus(r, 200)
        return b"Logged in as alice" in r.body

    def logout_form(self, host, cookie):
        """The logout form on host for a browser with cookie: (the form,
        the cookies to send back with its post, its CSRF token)."""
        r = self.server.get("/_/logout/?next=/somewhere/", host=host, headers={"Cookie": cookie})
        self.assertStatus(r, 200)
        nonce = self.cookie_of(r)
        self.assertTrue(nonce.startswith("lectern_csrf="), nonce)
        m = re.search(rb'name="csrf_token" value="([0-9a-f]{64})"', r.body)
        return r, cookie + "; " + nonce, m.group(1).decode()

    def logout(self, host, cookies, csrf, origin=True, headers=None):
        hdrs = {"Content-Type": FORM, "Cookie": cookies}
        if origin:
            hdrs["Origin"] = "http://" + host
        hdrs.update(headers or {})
        fields = {"next": "/somewhere/"}
        if csrf is not None:
            fields["csrf_token"] = csrf
        return self.server.request("POST", "/_/logout/", host=host,
                                   raw=urllib.parse.urlencode(fields).encode(), headers=hdrs)

    def test_logout_ends_the_login_and_its_docs_sessions(self):
        api = self.api_session(self.alice)
        docs = self.docs_session(api)
        other_browser = self.api_session(self.alice)
        self.assertTrue(self.reads_secret(docs))
        form, cookies, csrf = self.logout_form(self.api(), api)
        self.assertIn(b"Logged in as alice", form.body)
        self.assertIn(b'action="/_/logout/"', form.body)
        self.assertIn(b'name="next" value="/somewhere/"', form.body)
        self.assertEqual(form.header("Cache-Control"), "no-store")
        self.assertEqual(form.header("X-Frame-Options"), "DENY")
        self.assertIn("Path=/_/;", form.header("Set-Cookie"))
        # The GET itself logs nobody out.
        self.assertTrue(self.logged_in_on_api(api))

        # Refused, and nothing ends: no Origin or Referer, another site's
        # origin (a docs host's page, a build's output), no token, the
        # token of another nonce, no nonce cookie.
        _, _, other_csrf = self.logout_form(self.api(), api)
        for r in (self.logout(self.api(), cookies, csrf, origin=False),
                  self.logout(self.api(), cookies, csrf,
                              headers={"Origin": "http://" + self.docs()}),
                  self.logout(self.api(), cookies, csrf,
                              headers={"Origin": "http://evil.example"}),
                  self.logout(self.api(), cookies, None),
                  self.logout(self.api(), cookies, "0" * 64),
                  self.logout(self.api(), cookies.split("; ")[0] + "; " +
                              cookies.split("; ")[1][:-4] + "abcd", csrf),
                  self.logout(self.api(), api, csrf)):
            self.assertStatus(r, 403)
            self.assertIn(b"expired or came from another site", r.body)
            self.assertIsNone(r.header("Set-Cookie"))
        self.assertNotEqual(other_csrf, csrf)
        self.assertTrue(self.logged_in_on_api(api))
        self.assertTrue(self.reads_secret(docs))

        # The form's own token with its cookie, from this host: out, the
        # cookie cleared, on to next.
        r = self.logout(self.api(), cookies, csrf)
        self.assertStatus(r, 302)
        self.assertEqual(r.header("Location"), "/somewhere/")
        self.assertTrue(r.header("Set-Cookie").startswith("lectern_session=;"))
        self.assertIn("Max-Age=0", r.header("Set-Cookie"))
        # A copy of either cookie is worth nothing now, and the login's
        # link to the docs host makes no new session; another login of
        # the same user goes on.
        self.assertFalse(self.logged_in_on_api(api))
        self.assertFalse(self.reads_secret(docs))
        r = self.server.get("/_/login/?next=/&host=" + self.docs(), host=self.api(),
                            headers={"Cookie": api})
        self.assertStatus(r, 200)
        self.assertTrue(self.logged_in_on_api(other_browser))

    def test_logout_on_a_docs_host(self):
        api = self.api_session(self.alice)
        docs = self.docs_session(api)
        form, cookies, csrf = self.logout_form(self.docs(), docs)
        self.assertIn(b"Logged in as alice", form.body)
        # The API host's origin is another origin here.
        r = self.logout(self.docs(), cookies, csrf, headers={"Origin": "http://" + self.api()})
        self.assertStatus(r, 403)
        self.assertTrue(self.reads_secret(docs))
        r = self.logout(self.docs(), cookies, csrf)
        self.assertStatus(r, 302)
        self.assertEqual(r.header("Location"), "/somewhere/")
        self.assertFalse(self.reads_secret(docs))
        self.assertFalse(self.logged_in_on_api(api))
        # A docs host takes no other POST.
        r = self.server.request("POST", "/en/secret/", host=self.docs(), raw=b"")
        self.assertStatus(r, 405)

    def test_revoking_the_token_or_logging_the_user_out_ends_sessions(self):
        token = self.server.token("alice")
        api = self.api_session(token)
        docs = self.docs_session(api)
        kept = self.api_session(self.alice)
        self.assertTrue(self.reads_secret(docs))
        listed = self.server.lectern("token", "list", "alice", "--json").stdout
        self.assertNotIn(token, listed)
        ids = re.findall(r'"id":([0-9]+)', listed)
        # The newest token is the one just made.
        self.server.lectern("token", "revoke", ids[-1])
        self.assertFalse(self.reads_secret(docs))
        self.assertFalse(self.logged_in_on_api(api))
        self.assertDetail(self.server.get("/api/v3/projects/", token=token), 401,
                          "Invalid token.")
        # Sessions of the user's other tokens go with `user logout`; the
        # tokens stay.
        self.assertTrue(self.logged_in_on_api(kept))
        self.server.lectern("user", "logout", "alice")
        self.assertFalse(self.logged_in_on_api(kept))
        self.assertStatus(self.server.get("/api/v3/projects/", token=self.alice), 200)

    def test_the_dashboard_links_to_the_logout(self):
        api = self.api_session(self.alice)
        r = self.server.get("/projects/main/", host=self.api(), headers={"Cookie": api})
        self.assertStatus(r, 200)
        self.assertIn(b'<span>alice</span><a href="/_/logout/?next=/projects/main/">Log out</a>',
                      r.body)
        r = self.server.get("/projects/main/", host=self.api())
        self.assertNotIn(b"Log out", r.body)


if __name__ == "__main__":
    main()
