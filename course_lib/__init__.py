"""The tool-call boundary: the course library.

Importing it makes sure requests to loopback (the local stand-in) bypass any proxy: see `loopback`.
"""

from course_lib.loopback import bypass_proxies_for_loopback

bypass_proxies_for_loopback()
