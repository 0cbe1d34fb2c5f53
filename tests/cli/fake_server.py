"""A misbehaving API server for the CLI's error tests (Python stdlib only).

    python3 fake_server.py MODE LOGFILE

listens on 127.0.0.1:0, prints "port N" on its first line, appends one line
per request ("METHOD PATH AUTHORIZATION-PRESENT") to LOGFILE, and answers
every request as MODE says:

    401      401 {"detail": "Invalid token."}
    429      429 with Retry-After: 1 and {"detail": "Request was throttled."}
    badjson  200 with Content-Type application/json and a body that is not JSON
    ok       200 with an empty project list
"""
import http.server
import json
import sys

MODE = sys.argv[1]
LOG = sys.argv[2]


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self):
        with open(LOG, "a") as f:
            f.write("%s %s %s\n" % (self.command, self.path,
                                    "auth" if self.headers.get("Authorization") else "noauth"))
        headers = {"Content-Type": "application/json"}
        if MODE == "401":
            status, body = 401, json.dumps({"detail": "Invalid token."})
        elif MODE == "429":
            status, body = 429, json.dumps({"detail": "Request was throttled."})
            headers["Retry-After"] = "1"
        elif MODE == "badjson":
            status, body = 200, '{"count": 1, "results": [ {"slug": '
        else:
            status, body = 200, json.dumps({"count": 0, "next": None, "previous": None,
                                            "results": []})
        data = body.encode()
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = answer

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("port %d" % server.server_address[1], flush=True)
server.serve_forever()
