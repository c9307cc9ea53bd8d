"""`python -m dyntools` is the `dyntools` command."""

from dyntools.cli import run

if __name__ == "__main__":
    run()
