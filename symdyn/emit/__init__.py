"""Emitters: optimized programs -> Python and C files and modules, through Jinja templates.

One backend per output language (backends.py: its printer, templates and files); the template
context (context.py) holds printed code, which the templates only lay out (render.py); writes
are all or nothing (write.py); C is compiled into a cached extension (build.py). The robot and
its derivation are the caller's (api.py): this package knows programs, not robot files.
"""
