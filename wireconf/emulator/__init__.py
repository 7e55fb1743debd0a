"""The provider emulator: each api's HTTP endpoints served from a case's recorded bytes, on 127.0.0.1.

A runtime that takes a base URL (every one people use, in every language) is pointed at a case's
*site*: ``http://127.0.0.1:<port>/<token>``, the token unguessable and the site that case's alone. Under
it each api's endpoint (the path its SDK appends, recognised by the api record's ``Route``) answers
with the case's recorded response exactly: status, headers, body bytes, an event stream in its
recorded events, one per chunk. Every request is captured as sent (method, path, query, headers, body
bytes). The site is also a forward proxy for the media downloads the case's input names (a ``CONNECT``
for ``https``, answered with fixture bytes under a certificate of the emulator's own authority);
anything else is refused, kept as a network attempt for the harness to make the case an error.

``server`` is the emulator (its sites and listeners), ``handler`` how one connection is served (the
standard library's ``ThreadingHTTPServer``), ``site`` one case's registration, ``answers`` what answers
its requests (recorded responses, an e2e case's cassette), ``routes`` what the provider records say
about where each api lives, ``tls`` the certificate authority of the download proxy. It sits among the
recordings (docs/architecture.md): it reads cassettes and provider records, and nothing above them.
"""
