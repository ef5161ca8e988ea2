"""The dashboard people use to see what the five decision points are doing.

Server-rendered (Jinja2), served by the API's own app at ``/ui``; every asset ships in this
package and the pages ask for nothing outside the server's origin (a Content-Security-Policy
of ``'self'`` says so to the browser). No JavaScript is needed to read it.
"""

from phronesis.ui.routes import router

__all__ = ["router"]
