package infer

import (
	"math"
	"testing"
)

// The reference values below were printed by testdata/reference.py with
// numpy 1.24.2, scipy 1.10.1 and statsmodels 0.13.5 (Debian bookworm);
// the tests never run Python.

// near reports whether got is within tol of want, relatively for values
// beyond 1 and absolutely below.
func near(got, want, tol float64) bool {
	if math.IsInf(want, 0) || math.IsNaN(want) {
		return got == want || math.IsNaN(got) && math.IsNaN(want)
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func TestWilsonMatchesStatsmodels(t *testing.T) {
	// statsmodels.stats.proportion.proportion_confint(count, nobs,
	// alpha=1−conf, method="wilson").
	for _, c := range []struct{ count, nobs, conf, lo, hi float64 }{
		{0.0, 1.0, 0.95, 0.0, 0.7934506856227627},
		{1.0, 1.0, 0.95, 0.2065493143772374, 1.0},
		{0.0, 10.0, 0.95, 0.0, 0.27753279986288926},
		{10.0, 10.0, 0.95, 0.7224672001371106, 1.0},
		{3.0, 10.0, 0.95, 0.10779126740630104, 0.6032218525388546},
		{91.0, 100.0, 0.95, 0.8377378714728368, 0.9519274599974349},
		{910.0, 1000.0, 0.95, 0.8906582073569279, 0.926203850684917},
		{1.0, 2000.0, 0.95, 8.826773070546765e-05, 0.0028268625032662146},
		{1999.0, 2000.0, 0.95, 0.9971731374967338, 0.9999117322692944},
		{891234.0, 1000000.0, 0.95, 0.8906222706497693, 0.891842723543177},
		{7.0, 9.0, 0.9, 0.5036427823767538, 0.9235052624456037},
		{45.0, 80.0, 0.99, 0.4203457248804312, 0.6950812034398379},
		{2.5, 7.0, 0.95, 0.11808301126155246, 0.6974399701860725},
	} {
		lo, hi, ok := Wilson(c.count, c.nobs, c.conf)
		if !ok || math.Abs(lo-c.lo) > 1e-9 || math.Abs(hi-c.hi) > 1e-9 {
			t.Errorf("Wilson(%v, %v, %v) = %.17g, %.17g, %v; statsmodels %.17g, %.17g", c.count, c.nobs, c.conf, lo, hi, ok, c.lo, c.hi)
		}
		// The figures agree far closer than the 1e-9.
		if math.Abs(lo-c.lo) > 1e-14 || math.Abs(hi-c.hi) > 1e-14 {
			t.Errorf("Wilson(%v, %v, %v) = %.17g, %.17g: more than 1e-14 from statsmodels' %.17g, %.17g", c.count, c.nobs, c.conf, lo, hi, c.lo, c.hi)
		}
	}
}

func TestWilsonRejectsBadInput(t *testing.T) {
	for _, c := range []struct{ k, n, conf float64 }{
		{0, 0, 0.95}, {1, 0, 0.95}, {-1, 10, 0.95}, {11, 10, 0.95}, {5, 10, 0}, {5, 10, 1},
		{math.NaN(), 10, 0.95}, {5, math.NaN(), 0.95}, {5, 10, math.NaN()}, {5, math.Inf(1), 0.95}, {5, -3, 0.95},
	} {
		if lo, hi, ok := Wilson(c.k, c.n, c.conf); ok || !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("Wilson(%v, %v, %v) = %v, %v, %v; want NaN, NaN, false", c.k, c.n, c.conf, lo, hi, ok)
		}
	}
}

func TestNormalQuantileMatchesScipy(t *testing.T) {
	// scipy.stats.norm.ppf(p).
	// The tail values agree with mpmath's −√2·erfinv(1−2p) at 50 digits
	// (−9.2623400897984075796 at 1e-20, −6.3613409024040561991 at 1e-10).
	for _, c := range []struct{ p, x float64 }{
		{1e-300, -37.0470962993612},
		{1e-20, -9.262340089798409},
		{1e-10, -6.361340902404056},
		{0.001, -3.090232306167813},
		{0.025, -1.9599639845400545},
		{0.05, -1.6448536269514729},
		{0.3, -0.5244005127080409},
		{0.5, 0.0},
		{0.7, 0.5244005127080407},
		{0.975, 1.959963984540054},
		{0.999, 3.090232306167813},
		{0.9999999999, 6.361340889697422},
	} {
		if got := NormalQuantile(c.p); !near(got, c.x, 1e-14) {
			t.Errorf("NormalQuantile(%v) = %.17g; scipy %.17g", c.p, got, c.x)
		}
	}
}

func TestStudentMatchesScipy(t *testing.T) {
	// scipy.stats.t.ppf(p, df), and the same quantile to 20 digits by
	// mpmath 1.2.1 (findroot on 1 − betainc(df/2, ½, 0, df/(df+t²))/2 at
	// 50 digits). scipy's own figure is off by up to 4e-11 relatively (at
	// df = 1 the quantile is tan(π(p−½)) = 12.7062047361746933…, scipy
	// says …6432095), so it is checked to 1e-10 and mpmath's to 1e-14.
	for _, c := range []struct{ p, df, scipy, mp float64 }{
		{0.975, 1.0, 12.706204736432095, 12.706204736174693314},
		{0.975, 2.0, 4.302652729911275, 4.3026527297494617894},
		{0.975, 3.0, 3.182446305284263, 3.1824463052837084359},
		{0.975, 8.0, 2.3060041350333704, 2.3060041352041661143},
		{0.975, 28.0, 2.048407141795244, 2.0484071417952447346},
		{0.975, 98.0, 1.984467454426692, 1.984467454508481421},
		{0.995, 5.0, 4.032142983557536, 4.0321429835552271793},
		{0.95, 12.0, 1.782287555649159, 1.7822875556493195515},
		{0.025, 10.0, -2.2281388519649385, -2.2281388519862742245},
		{0.975, 999.0, 1.9623414611334487, 1.9623414611334495975},
		{0.975, 1000.0, 1.9623390808264074, 1.9623390808264081039},
		{0.975, 1999.0, 1.9611514201705613, 1.9611514201705615955},
		{0.975, 999999.0, 1.959966356816479, 1.9599663568164789346},
		{0.9995, 4000.0, 3.2929607983026044, 3.2929607983026049061},
	} {
		got := StudentQuantile(c.p, c.df)
		if !near(got, c.scipy, 1e-10) || !near(got, c.mp, 1e-14) {
			t.Errorf("StudentQuantile(%v, %v) = %.17g; scipy %.17g, mpmath %.17g", c.p, c.df, got, c.scipy, c.mp)
		}
	}
	// scipy.stats.t.cdf(t, df).
	for _, c := range []struct{ t, df, p float64 }{
		{2.0, 3.0, 0.9303370157205785},
		{-1.5, 7.0, 0.08864924349498501},
		{0.3, 1.0, 0.5927735790777423},
		{4.2, 25.0, 0.999851998050535},
		{-3.3, 98.0, 0.0006745011335440052},
		{1.96, 500.0, 0.974724605090117},
	} {
		if got := StudentCDF(c.t, c.df); math.Abs(got-c.p) > 1e-13*c.p {
			t.Errorf("StudentCDF(%v, %v) = %.17g; scipy %.17g", c.t, c.df, got, c.p)
		}
	}
}

func TestBinomialMatchesScipy(t *testing.T) {
	// scipy.stats.binom.pmf(k, n, p).
	for _, c := range []struct {
		k, n   int64
		p, pmf float64
	}{
		{0, 10, 0.3, 0.028247524899999984},
		{3, 10, 0.3, 0.26682793199999977},
		{10, 10, 0.3, 5.9048999999999975e-06},
		{500, 1000, 0.5, 0.025225018178360804},
		{12, 1000, 0.01, 0.09516151576662027},
		{499000, 1000000, 0.5, 0.00010798197801891438},
		{7, 20, 0.9, 3.707757568799992e-09},
		{250000, 1000000, 0.25, 0.0009213173992255512},
	} {
		if got := BinomialPMF(c.k, c.n, c.p); math.Abs(got-c.pmf) > 1e-13*c.pmf {
			t.Errorf("BinomialPMF(%d, %d, %v) = %.17g; scipy %.17g", c.k, c.n, c.p, got, c.pmf)
		}
	}
	// scipy.stats.binom.cdf(k, n, p).
	for _, c := range []struct {
		k, n   int64
		p, cdf float64
	}{
		{3, 10, 0.3, 0.6496107184000002},
		{0, 5, 0.5, 0.03125},
		{5, 5, 0.5, 1.0},
		{480, 1000, 0.5, 0.10872414660207046},
		{520, 1000, 0.5, 0.9026168357691174},
		{12, 1000, 0.01, 0.7925116019097246},
		{498500, 1000000, 0.5, 0.0013543276530299786},
		{60, 200, 0.4, 0.0021302597911694895},
	} {
		if got := BinomialCDF(c.k, c.n, c.p); math.Abs(got-c.cdf) > 1e-12*c.cdf {
			t.Errorf("BinomialCDF(%d, %d, %v) = %.17g; scipy %.17g", c.k, c.n, c.p, got, c.cdf)
		}
	}
}

func TestMcNemarExactMatchesStatsmodels(t *testing.T) {
	// statsmodels.stats.contingency_tables.mcnemar([[100, b], [c, 50]],
	// exact=True).pvalue.
	for _, c := range []struct {
		b, c int64
		p    float64
	}{
		{0, 0, 1.0},
		{0, 1, 1.0},
		{1, 1, 1.0},
		{3, 10, 0.09228515625},
		{10, 3, 0.09228515625},
		{5, 5, 1.0},
		{20, 35, 0.05806414679240905},
		{60, 100, 0.001953728034064355},
		{400, 480, 0.007707305043339113},
		{0, 25, 5.960464477539063e-08},
		{12345, 12000, 0.027471663212772012},
	} {
		if got := McNemarExact(c.b, c.c); math.Abs(got-c.p) > 1e-12*c.p {
			t.Errorf("McNemarExact(%d, %d) = %.17g; statsmodels %.17g", c.b, c.c, got, c.p)
		}
	}
	if p := McNemarExact(-1, 3); !math.IsNaN(p) {
		t.Errorf("McNemarExact(-1, 3) = %v; want NaN", p)
	}
}

func TestQuantileMatchesNumpy(t *testing.T) {
	x := []float64{0.12, 3.5, -1.25, 7.0, 7.0, 2.2, 0.0, 9.75, -4.5, 0.3333333333333333, 5.5, 6.125, 2.2, -0.8, 11.0, 4.4, 8.8, 0.05, 3.3, 1.7}
	sorted := append([]float64(nil), x...)
	sortFloats(sorted)
	// numpy.quantile(x, q), method "linear"; bit for bit, including the
	// last place where (1−0.95)/2 in float64 is not 0.025. (Go's constant
	// arithmetic is exact, so the levels are computed from variables, as
	// Percentile computes them.)
	conf95, conf99 := 0.95, 0.99
	lower95, upper95 := (1-conf95)/2, (1+conf95)/2
	lower99, upper99 := (1-conf99)/2, (1+conf99)/2
	for _, c := range []struct{ q, v float64 }{
		{0.0, -4.5},
		{0.025, -2.95625},
		{lower95, -2.956249999999999},
		{upper95, 10.406249999999998},
		{0.975, 10.406249999999998},
		{0.1, -0.845},
		{0.5, 2.75},
		{0.51, 2.9589999999999996},
		{0.55, 3.39},
		{0.9, 8.895000000000001},
		{1.0, 11.0},
		{0.005, -4.19125},
		{lower99, -4.19125},
		{upper99, 10.881250000000001},
		// Two levels where numpy's x[i+1] − (1−t)·d differs from x[i] + t·d
		// in the last place.
		{0.03265, -2.4838625},
		{0.0327, -2.4807750000000004},
	} {
		if got := Quantile(sorted, c.q); got != c.v {
			t.Errorf("Quantile(x, %v) = %.17g; numpy %.17g", c.q, got, c.v)
		}
	}
	lo, hi, undefined := Percentile(append([]float64{math.NaN()}, x...), 0.95)
	if lo != -2.956249999999999 || hi != 10.406249999999998 || undefined != 1 {
		t.Errorf("Percentile(NaN + x, 0.95) = %.17g, %.17g, %d; want numpy's -2.956249999999999, 10.406249999999998 and 1 undefined", lo, hi, undefined)
	}
}

func TestMultipleComparisonsMatchStatsmodels(t *testing.T) {
	p := []float64{0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.9, 0.0001, 0.6, 0.049}
	// statsmodels.stats.multitest.multipletests(p, method=…)[1].
	holm := []float64{0.08, 0.24, 0.21, 0.045, 0.6000000000000001, 0.24, 1.0, 0.001, 1.0, 0.24}
	bh := []float64{0.03333333333333333, 0.06666666666666667, 0.06666666666666667, 0.024999999999999998, 0.25, 0.06666666666666667, 0.9, 0.001, 0.6666666666666666, 0.07}
	gotH, gotB := Holm(p), BenjaminiHochberg(p)
	for i := range p {
		if gotH[i] != holm[i] {
			t.Errorf("Holm[%d] = %.17g; statsmodels %.17g", i, gotH[i], holm[i])
		}
		if gotB[i] != bh[i] {
			t.Errorf("BenjaminiHochberg[%d] = %.17g; statsmodels %.17g", i, gotB[i], bh[i])
		}
	}
	// NaN stays NaN and does not count: the others are adjusted as a
	// family of 2.
	got := Holm([]float64{0.01, math.NaN(), 0.04})
	if got[0] != 0.02 || !math.IsNaN(got[1]) || got[2] != 0.04 {
		t.Errorf("Holm(0.01, NaN, 0.04) = %v; want [0.02 NaN 0.04]", got)
	}
}

func TestLinearTrendMatchesScipy(t *testing.T) {
	y := []float64{0.91, 0.905, 0.912, 0.9, 0.897, 0.899, 0.893, 0.89, 0.894, 0.886, 0.884, 0.88}
	x2 := []float64{1.0, 2.0, 4.0, 5.0, 7.0, 8.5, 9.0, 12.0}
	y2 := []float64{3.1, 2.0, 5.5, 4.9, 8.2, 7.7, 10.1, 12.4}
	// scipy.stats.linregress(x, y): slope, intercept, rvalue, pvalue,
	// stderr; the interval is slope ± scipy.stats.t.ppf((1+conf)/2, n−2)·stderr.
	for _, c := range []struct {
		x, y                     []float64
		conf                     float64
		slope, icpt, r, p, se, t float64
	}{
		{nil, y, 0.95, -0.002650349650349653, 0.9104102564102564, -0.9522843518315155, 1.7976276038689728e-06, 0.0002686200805621637, 2.2281388519649385},
		{x2, y2, 0.90, 0.910022271714922, 1.2204899777282856, 0.9668137145954265, 8.911344804797753e-05, 0.0981735576941178, 1.9431802803927816},
	} {
		fit, ok := LinearTrend(c.x, c.y, c.conf)
		if !ok {
			t.Fatalf("LinearTrend(%v, %v) not ok", c.x, c.y)
		}
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"slope", fit.Slope, c.slope}, {"intercept", fit.Intercept, c.icpt}, {"r", fit.R, c.r},
			{"p", fit.P, c.p}, {"stderr", fit.SlopeSE, c.se},
			{"lo", fit.Lo, c.slope - c.t*c.se}, {"hi", fit.Hi, c.slope + c.t*c.se},
		} {
			if math.Abs(f.got-f.want) > 1e-10*math.Abs(f.want) {
				t.Errorf("LinearTrend %s = %.17g; scipy %.17g", f.name, f.got, f.want)
			}
		}
	}
	if _, ok := LinearTrend([]float64{1, 1, 1}, []float64{1, 2, 3}, 0.95); ok {
		t.Error("LinearTrend with every x equal is ok")
	}
	if _, ok := LinearTrend(nil, []float64{1, 2}, 0.95); ok {
		t.Error("LinearTrend of 2 points is ok")
	}
}

func TestTheilSenMatchesScipy(t *testing.T) {
	// scipy.stats.theilslopes(y, x, alpha=conf): slope, intercept,
	// low_slope, high_slope. The first series has an outlier (0.5), the
	// second ties in x and in y.
	for _, c := range []struct {
		x, y                []float64
		conf                float64
		slope, icpt, lo, hi float64
	}{
		{nil, []float64{0.91, 0.905, 0.912, 0.9, 0.5, 0.899, 0.893, 0.89, 0.894, 0.886, 0.884, 0.88}, 0.95,
			-0.0025000000000000022, 0.90725, -0.003333333333333336, -0.0020000000000000018},
		{[]float64{1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0, 9.0}, []float64{2.0, 2.5, 2.5, 4.0, 3.0, 6.0, 6.0, 7.5, 9.0}, 0.90,
			0.9017857142857143, -0.5089285714285712, 0.5, 1.1666666666666667},
	} {
		fit, ok := TheilSen(c.x, c.y, c.conf)
		if !ok || !near(fit.Slope, c.slope, 1e-15) || !near(fit.Intercept, c.icpt, 1e-15) || !near(fit.Lo, c.lo, 1e-15) || !near(fit.Hi, c.hi, 1e-15) {
			t.Errorf("TheilSen = %+v, %v; scipy slope %.17g intercept %.17g interval %.17g, %.17g", fit, ok, c.slope, c.icpt, c.lo, c.hi)
		}
	}
}

func TestSignFlipMatchesScipyExact(t *testing.T) {
	// scipy.stats.permutation_test((x, y), lambda x, y: mean(x − y),
	// permutation_type="samples", n_resamples=inf).pvalue: the exact test.
	for _, c := range []struct {
		x, y []float64
		p    float64
	}{
		{[]float64{0.9, 0.7, 0.8, 0.95, 0.6, 0.85, 0.75, 0.9}, []float64{0.85, 0.72, 0.7, 0.9, 0.5, 0.8, 0.75, 0.88}, 0.046875},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []float64{1.5, 1, 3.5, 3, 6, 5, 8, 7, 9, 10.5, 10, 13}, 1.0},
		{[]float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3}, []float64{2, 7, 1, 8, 2, 8, 1, 8, 2, 8}, 0.580078125},
		{[]float64{0.1, 0.2, -0.3, 0.3, 0.6, -0.1, 0.2, 0.4}, []float64{0, 0, 0, 0, 0, 0, 0, 0}, 0.15625},
		// Sign patterns whose means are equal but round differently from
		// the observed one: scipy's tolerance counts them as ties (without
		// it the p-value would be 0.4296875).
		{[]float64{-0.4, 0.8, 0.6, 1.3, -0.8, -0.1, 0.9, -0.3, -0.2}, []float64{0, 0, 0, 0, 0, 0, 0, 0, 0}, 0.4453125},
	} {
		d := make([]float64, len(c.x))
		for i := range d {
			d[i] = c.x[i] - c.y[i]
		}
		p, test := SignFlip(d, Options{})
		if test != TestSignFlipExact || math.Abs(p-c.p) > 1e-14 {
			t.Errorf("SignFlip(%v) = %.17g (%s); scipy's exact %.17g", d, p, test, c.p)
		}
	}
}

func TestNewcombeMatchesStatsmodels(t *testing.T) {
	// statsmodels.stats.proportion.confint_proportions_2indep(x1, n1, x2,
	// n2, method="newcomb", compare="diff", alpha=1−conf).
	for _, c := range []struct{ x1, n1, x2, n2, conf, lo, hi float64 }{
		{56.0, 70.0, 48.0, 80.0, 0.95, 0.05243147240236498, 0.33387265403690614},
		{9.0, 10.0, 3.0, 10.0, 0.95, 0.1705227239345029, 0.809017973535488},
		{0.0, 10.0, 0.0, 20.0, 0.95, -0.1611251580528194, 0.27753279986288926},
		{10.0, 10.0, 0.0, 10.0, 0.95, 0.6075093504305241, 1.0},
		{1460.0, 2000.0, 1560.0, 2000.0, 0.95, -0.07656024300935814, -0.023352030032476},
		{5.0, 5.0, 2.0, 8.0, 0.9, 0.2947044320994483, 0.9134851558009378},
		{891234.0, 1000000.0, 890000.0, 1000000.0, 0.99, 9.701835261247886e-05, 0.0023709882036860165},
		{3.0, 7.0, 3.0, 7.0, 0.95, -0.41965682040757163, 0.41965682040757163},
	} {
		lo, hi, ok := NewcombeDiff(c.x1, c.n1, c.x2, c.n2, c.conf)
		if !ok || math.Abs(lo-c.lo) > 1e-12 || math.Abs(hi-c.hi) > 1e-12 {
			t.Errorf("NewcombeDiff(%v/%v − %v/%v, %v) = %.17g, %.17g, %v; statsmodels %.17g, %.17g", c.x1, c.n1, c.x2, c.n2, c.conf, lo, hi, ok, c.lo, c.hi)
		}
	}
	if _, _, ok := NewcombeDiff(1, 0, 1, 2, 0.95); ok {
		t.Error("NewcombeDiff with n1 = 0 is defined")
	}
}
