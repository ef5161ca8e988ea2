"""The long-running processes built on a whole ``Engine``: Celery's app (the proactive loop's
cycles at scale) and the document-job process. They sit above the decision points, which never
import the engine that composes them."""
