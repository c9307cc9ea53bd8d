"""`python -m dyntools` is the `dyntools` command."""

from dyntools.cli import script

if __name__ == "__main__":
    script()
