"""The catalog: hand-written tools first, then the registry's current versions, then
generation (`Catalog`, catalog/core.py), with search over all of them (catalog/search.py) and
the call shape of a hand-written function (catalog/signature.py)."""

from dyntools.catalog.core import Catalog

__all__ = ["Catalog"]
