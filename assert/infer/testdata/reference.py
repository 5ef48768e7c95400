# Reference values of assert/infer's tests, printed as Go literals.
# Not run by the tests (they carry the values); rerun by hand to check:
#   /usr/bin/python3 testdata/reference.py
# Versions used: Python 3.11, numpy 1.24.2, scipy 1.10.1, statsmodels 0.13.5
# (Debian bookworm's python3-numpy, python3-scipy, python3-statsmodels).
import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

def g(x):
    return repr(float(x))

print("// numpy", np.__version__, "scipy", scipy.__version__, "statsmodels", statsmodels.__version__)

print("// proportion_confint(count, nobs, alpha, method='wilson')")
for count, nobs, alpha in [(0, 1, 0.05), (1, 1, 0.05), (0, 10, 0.05), (10, 10, 0.05), (3, 10, 0.05),
                           (91, 100, 0.05), (910, 1000, 0.05), (1, 2000, 0.05), (1999, 2000, 0.05),
                           (891234, 1000000, 0.05), (7, 9, 0.10), (45, 80, 0.01), (2.5, 7, 0.05)]:
    lo, hi = proportion_confint(count, nobs, alpha=alpha, method="wilson")
    print("{%s, %s, %s, %s, %s}," % (g(count), g(nobs), g(1 - alpha), g(lo), g(hi)))

print("// stats.norm.ppf(p)")
for p in [1e-300, 1e-20, 1e-10, 0.001, 0.025, 0.05, 0.3, 0.5, 0.7, 0.975, 0.999, 1 - 1e-10]:
    print("{%s, %s}," % (g(p), g(stats.norm.ppf(p))))

print("// stats.t.ppf(p, df)")
for p, df in [(0.975, 1), (0.975, 2), (0.975, 3), (0.975, 8), (0.975, 28), (0.975, 98), (0.995, 5),
              (0.95, 12), (0.025, 10), (0.975, 999), (0.975, 1000), (0.975, 1999), (0.975, 999999), (0.9995, 4000)]:
    print("{%s, %s, %s}," % (g(p), g(df), g(stats.t.ppf(p, df))))

print("// stats.t.cdf(t, df)")
for t, df in [(2.0, 3), (-1.5, 7), (0.3, 1), (4.2, 25), (-3.3, 98), (1.96, 500)]:
    print("{%s, %s, %s}," % (g(t), g(df), g(stats.t.cdf(t, df))))

print("// stats.binom.pmf(k, n, p)")
for k, n, p in [(0, 10, 0.3), (3, 10, 0.3), (10, 10, 0.3), (500, 1000, 0.5), (12, 1000, 0.01),
                (499000, 1000000, 0.5), (7, 20, 0.9), (250000, 1000000, 0.25)]:
    print("{%d, %d, %s, %s}," % (k, n, g(p), g(stats.binom.pmf(k, n, p))))

print("// stats.binom.cdf(k, n, p)")
for k, n, p in [(3, 10, 0.3), (0, 5, 0.5), (5, 5, 0.5), (480, 1000, 0.5), (520, 1000, 0.5), (12, 1000, 0.01),
                (498500, 1000000, 0.5), (60, 200, 0.4)]:
    print("{%d, %d, %s, %s}," % (k, n, g(p), g(stats.binom.cdf(k, n, p))))

print("// mcnemar([[a, b], [c, d]], exact=True).pvalue")
for b, c in [(0, 0), (0, 1), (1, 1), (3, 10), (10, 3), (5, 5), (20, 35), (60, 100), (400, 480), (0, 25), (12345, 12000)]:
    print("{%d, %d, %s}," % (b, c, g(mcnemar([[100, b], [c, 50]], exact=True).pvalue)))

print("// np.quantile(x, q) (method='linear')")
x = np.array([0.12, 3.5, -1.25, 7.0, 7.0, 2.2, 0.0, 9.75, -4.5, 1.0 / 3, 5.5, 6.125, 2.2, -0.8, 11.0, 4.4, 8.8, 0.05, 3.3, 1.7])
print("x = []float64{" + ", ".join(g(v) for v in x) + "}")
for q in [0.0, 0.025, (1 - 0.95) / 2, (1 + 0.95) / 2, 0.975, 0.1, 0.5, 0.51, 0.55, 0.9, 1.0, 0.005, (1 - 0.99) / 2, (1 + 0.99) / 2, 0.03265, 0.0327]:
    print("{%s, %s}," % (g(q), g(np.quantile(x, q))))

print("// multipletests(p, method='holm' / 'fdr_bh')[1]")
p = np.array([0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.9, 0.0001, 0.6, 0.049])
print("p = []float64{" + ", ".join(g(v) for v in p) + "}")
print("holm = []float64{" + ", ".join(g(v) for v in multipletests(p, method="holm")[1]) + "}")
print("bh = []float64{" + ", ".join(g(v) for v in multipletests(p, method="fdr_bh")[1]) + "}")

print("// linregress(x, y)")
lx = np.arange(12, dtype=float)
ly = np.array([0.91, 0.905, 0.912, 0.9, 0.897, 0.899, 0.893, 0.89, 0.894, 0.886, 0.884, 0.88])
r = stats.linregress(lx, ly)
print("y = []float64{" + ", ".join(g(v) for v in ly) + "}")
print("slope, intercept, r, p, stderr = %s, %s, %s, %s, %s" % (g(r.slope), g(r.intercept), g(r.rvalue), g(r.pvalue), g(r.stderr)))
print("t.ppf(0.975, 10) =", g(stats.t.ppf(0.975, 10)))
lx2 = np.array([1.0, 2.0, 4.0, 5.0, 7.0, 8.5, 9.0, 12.0])
ly2 = np.array([3.1, 2.0, 5.5, 4.9, 8.2, 7.7, 10.1, 12.4])
r = stats.linregress(lx2, ly2)
print("x2 =", list(lx2), "y2 =", list(ly2))
print("slope, intercept, r, p, stderr = %s, %s, %s, %s, %s" % (g(r.slope), g(r.intercept), g(r.rvalue), g(r.pvalue), g(r.stderr)))
print("t.ppf(0.95, 6) =", g(stats.t.ppf(0.95, 6)))

print("// theilslopes(y, x, alpha)")
ty = np.array([0.91, 0.905, 0.912, 0.9, 0.5, 0.899, 0.893, 0.89, 0.894, 0.886, 0.884, 0.88])
res = stats.theilslopes(ty, None, 0.95)
print("y =", list(ty))
print(g(res[0]), g(res[1]), g(res[2]), g(res[3]))
tx = np.array([1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0, 9.0])
ty2 = np.array([2.0, 2.5, 2.5, 4.0, 3.0, 6.0, 6.0, 7.5, 9.0])
res = stats.theilslopes(ty2, tx, 0.90)
print("x =", list(tx), "y =", list(ty2))
print(g(res[0]), g(res[1]), g(res[2]), g(res[3]))

print("// permutation_test((x, y), mean diff, permutation_type='samples', two-sided), exact")
def stat(x, y, axis=-1):
    return np.mean(x - y, axis=axis)
for xs, ys in [([0.9, 0.7, 0.8, 0.95, 0.6, 0.85, 0.75, 0.9], [0.85, 0.72, 0.7, 0.9, 0.5, 0.8, 0.75, 0.88]),
               ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [1.5, 1, 3.5, 3, 6, 5, 8, 7, 9, 10.5, 10, 13]),
               ([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], [2, 7, 1, 8, 2, 8, 1, 8, 2, 8]),
               ([0.1, 0.2, -0.3, 0.3, 0.6, -0.1, 0.2, 0.4], [0, 0, 0, 0, 0, 0, 0, 0]),
               ([-0.4, 0.8, 0.6, 1.3, -0.8, -0.1, 0.9, -0.3, -0.2], [0, 0, 0, 0, 0, 0, 0, 0, 0])]:
    xs, ys = np.array(xs, float), np.array(ys, float)
    res = stats.permutation_test((xs, ys), stat, permutation_type="samples", vectorized=True, n_resamples=np.inf)
    print("x =", list(xs), "y =", list(ys), "p =", g(res.pvalue))

print("// confint_proportions_2indep(x1, n1, x2, n2, method='newcomb', compare='diff', alpha)")
from statsmodels.stats.proportion import confint_proportions_2indep
for x1, n1, x2, n2, alpha in [(56, 70, 48, 80, 0.05), (9, 10, 3, 10, 0.05), (0, 10, 0, 20, 0.05), (10, 10, 0, 10, 0.05),
                              (1460, 2000, 1560, 2000, 0.05), (5, 5, 2, 8, 0.10), (891234, 1000000, 890000, 1000000, 0.01),
                              (3, 7, 3, 7, 0.05)]:
    lo, hi = confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff", alpha=alpha)
    print("{%s, %s, %s, %s, %s, %s, %s}," % (g(x1), g(n1), g(x2), g(n2), g(1 - alpha), g(lo), g(hi)))

print("// cmd/nlutest TestDiffMcNemarMatchesStatsmodels: mcnemar([[both, onlyA], [onlyB, rest]], exact=True).pvalue")
for both, b, c, rest in [(700, 60, 100, 140), (700, 35, 20, 245), (500, 13, 0, 487)]:
    print(both, b, c, g(mcnemar([[both, b], [c, rest]], exact=True).pvalue))
