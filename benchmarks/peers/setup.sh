#!/bin/sh
# Build the peers' own environment: benchmarks/peers/.venv (git-ignored).  Never installs into dpbook's venv.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
[ -x "$HERE/.venv/bin/python" ] || "$PYTHON" -m venv "$HERE/.venv"
"$HERE/.venv/bin/python" -m pip install --quiet --upgrade pip
"$HERE/.venv/bin/python" -m pip install --quiet -r "$HERE/requirements.txt"
"$HERE/.venv/bin/python" -m pip install --quiet --no-deps "smartnoise-synth==1.0.8" "smartnoise-sql==1.0.10"
"$HERE/.venv/bin/python" -c "from snsynth.mwem import MWEMSynthesizer; print('smartnoise-synth MWEM importable')"
"$HERE/.venv/bin/python" -c "from snsynth.aim import AIMSynthesizer; import mbi; print('smartnoise-synth AIM importable (mbi', mbi.__version__ if hasattr(mbi, '__version__') else '1.1.0', ')')"
