"""`python -m dyntools` is the `dyntools` command."""

from dyntools.cli import main

if __name__ == "__main__":
    main()
