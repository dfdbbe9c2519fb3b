"""OpenCV's OpenCL kernels (Debian's python3-opencv, its transparent API: the same calls on a
cv2.UMat run on the OpenCL device), each result compared with OpenCV's own CPU code: colour
conversion, separable and 2-D filters, resizing, warping, morphology, median and bilateral
filters, pyramids, histograms, integral images, template matching, reductions and Canny. OpenCV
builds each kernel from its sources with the operation's types and sizes as -D options.

Usage: python3 opencv_umat.py   Prints one line per operation and ALL OK, or exits 1.
OpenCV picks a GPU by default (OPENCV_OPENCL_DEVICE=":CPU:" runs it on PoCL).
"""

import sys

import cv2
import numpy as np

cv2.ocl.setUseOpenCL(True)
device = cv2.ocl.Device_getDefault()
print("opencl:", cv2.ocl.useOpenCL(), device.name() if cv2.ocl.useOpenCL() else "-", flush=True)
if not cv2.ocl.useOpenCL():
    sys.exit("no OpenCL device: nothing here would run on one")

rng = np.random.default_rng(3)
colour = rng.integers(0, 256, (96, 128, 3), dtype=np.uint8)
real = rng.random((96, 128)).astype(np.float32)
gray = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
images = {"colour": colour, "real": real, "gray": gray}
failed = []


def verdict(name, good, detail):
    if not good:
        failed.append(name)
    print(f"{name}: {detail} {'ok' if good else 'WRONG'}", flush=True)


def compare(name, operation, image, tolerance):
    """`operation` on a UMat (the OpenCL kernels) against the same call on the array (CPU)."""
    try:
        source = images[image]
        got = operation(cv2.UMat(source))
        got = got.get() if isinstance(got, cv2.UMat) else got
        error = np.abs(np.float64(got) - np.float64(operation(source))).max()
        verdict(name, error <= tolerance, f"max error {error:g}")
    except Exception as error:  # noqa: BLE001 - the message is the diagnostic
        verdict(name, False, f"FAILED {type(error).__name__}: {str(error)[:1000]}")


kernel = np.float32([[0, -1, 0], [-1, 5, -1], [0, -1, 0]])
affine = np.float32([[0.9, 0.1, 3], [-0.1, 0.9, 5]])
template = real[10:20, 10:20].copy()
for name, operation, image, tolerance in [
    ("cvtColor", lambda x: cv2.cvtColor(x, cv2.COLOR_BGR2GRAY), "colour", 1),
    ("GaussianBlur", lambda x: cv2.GaussianBlur(x, (5, 5), 1.5), "colour", 1),
    ("resize", lambda x: cv2.resize(x, (64, 48), interpolation=cv2.INTER_LINEAR), "colour", 1),
    ("Sobel", lambda x: cv2.Sobel(x, cv2.CV_32F, 1, 0, ksize=3), "real", 1e-3),
    ("threshold", lambda x: cv2.threshold(x, 0.5, 1.0, cv2.THRESH_BINARY)[1], "real", 0),
    ("add", lambda x: cv2.add(x, x), "colour", 0),
    ("dilate", lambda x: cv2.dilate(x, np.ones((3, 3), np.uint8)), "colour", 0),
    ("warpAffine", lambda x: cv2.warpAffine(x, affine, (128, 96)), "colour", 2),
    ("blur", lambda x: cv2.blur(x, (3, 3)), "real", 1e-4),
    ("medianBlur", lambda x: cv2.medianBlur(x, 3), "gray", 0),
    ("pyrDown", cv2.pyrDown, "colour", 1),
    ("flip", lambda x: cv2.flip(x, -1), "colour", 0),
    ("transpose", cv2.transpose, "real", 0),
    ("filter2D", lambda x: cv2.filter2D(x, -1, kernel), "real", 1e-4),
    ("equalizeHist", cv2.equalizeHist, "gray", 1),
    ("integral", cv2.integral, "gray", 0),
    ("matchTemplate", lambda x: cv2.matchTemplate(x, template, cv2.TM_SQDIFF), "real", 1e-3),
    ("bilateralFilter", lambda x: cv2.bilateralFilter(x, 5, 30, 5), "colour", 2),
    ("normalize", lambda x: cv2.normalize(x, None, 0, 1, cv2.NORM_MINMAX), "real", 1e-5),
    ("minMaxLoc", lambda x: np.array(cv2.minMaxLoc(x)[:2]), "real", 0),
    ("mean", lambda x: np.array(cv2.mean(x)), "real", 1e-4),
    ("countNonZero", lambda x: np.array([cv2.countNonZero(x)]), "gray", 0),
]:
    compare(name, operation, image, tolerance)

# Canny's OpenCL and CPU paths differ in a few edge pixels by design (different gradient
# rounding); both are right if they agree almost everywhere.
try:
    edges = cv2.Canny(cv2.UMat(gray), 50, 150).get()
    differ = float((edges != cv2.Canny(gray, 50, 150)).mean())
    verdict("Canny", differ < 0.02, f"{differ:.4f} of pixels differ")
except Exception as error:  # noqa: BLE001
    verdict("Canny", False, f"FAILED {type(error).__name__}: {str(error)[:1000]}")

print("ALL OK" if not failed else "FAILED: " + " ".join(failed))
sys.exit(1 if failed else 0)
