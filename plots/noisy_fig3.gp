# noisy, Fig. 3: excess risk of the min-norm dense and sparse estimators vs sample size n (log-log).
# Usage: gnuplot -e "csv='results/noisy_fig3.csv'; png='results/noisy_fig3.png'" plots/noisy_fig3.gp
# Reads the study noisy.excess_risk's columns by name: n, estimator (dense | sparse), excess_mean,
# excess_std_error, excess_exact, excess_leading ("nan" = undefined). Writes png and an svg beside it.
if (!exists("csv")) csv = 'results/noisy_fig3.csv'
if (!exists("png")) png = 'results/noisy_fig3.png'
default_title = "noisy Fig. 3: excess risk of the min-norm estimators vs n"

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
# Title and trial count from the CSV metadata ('# title:' is the scenario's title).
title_text = system(sprintf("sed -n 's/^# title: //p' '%s' | head -1", csv))
if (strlen(title_text) == 0) title_text = default_title
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
if (strlen(trials_text) > 0) title_text = sprintf("%s (%s)", title_text, trials_text)

# Columns are selected by name (the CSV header), so a reordered CSV still plots right. One datablock
# per estimator (columns: n, mean, std_error, exact, leading), so that each curve is drawn through its own rows only.
set datafile separator comma
set datafile columnheaders
# Column 6 is the leading order only where it applies, n > d (an over-determined fit; below the
# interpolation threshold it is not an approximation of anything).
set table $dense
plot csv using "n":"excess_mean":"excess_std_error":"excess_exact":(column("n") > column("d") ? column("excess_leading") : NaN) with table if (strcol("estimator") eq "dense")
set table $sparse
plot csv using "n":"excess_mean":"excess_std_error":"excess_exact":(column("n") > column("d") ? column("excess_leading") : NaN) with table if (strcol("estimator") eq "sparse")
unset table
dval = system(sprintf("awk -F, '/^#/ {next} !seen++ {for (i = 1; i <= NF; i++) if ($i == \"d\") k = i; next} {print $k; exit}' '%s'", csv)) + 0
# The summary fits a/n^2 + b/n (over n > d) from the CSV metadata ('# fit_dense: ... a = A +- ., b = B +- ., ...').
fit_a(est) = system(sprintf("sed -n 's/^# fit_%s:.* a = \\([^ ]*\\) .*/\\1/p' '%s' | head -1", est, csv))
fit_b(est) = system(sprintf("sed -n 's/^# fit_%s:.* b = \\([^ ]*\\) .*/\\1/p' '%s' | head -1", est, csv))
da = fit_a("dense"); db = fit_b("dense"); sa = fit_a("sparse"); sb = fit_b("sparse")
have_dense_fit = strlen(da) > 0 && strlen(db) > 0
have_sparse_fit = strlen(sa) > 0 && strlen(sb) > 0
dense_fit(n) = (have_dense_fit && n > dval) ? (da + 0.0) / n**2 + (db + 0.0) / n : NaN
sparse_fit(n) = (have_sparse_fit && n > dval) ? (sa + 0.0) / n**2 + (sb + 0.0) / n : NaN
set datafile separator whitespace
set datafile nocolumnheaders

# The same figure as PNG and, beside it, SVG (for papers).
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1000,700 enhanced font ",11"
  } else {
    set terminal png size 1000,700
  }
  set output png
} else {
  set terminal svg size 1000,700 enhanced font ",11" dynamic
  set output svg
}
set title title_text noenhanced
set xlabel "samples n"
set ylabel "excess risk"
set logscale xy
set format y "10^{%L}"
set grid
set key top right box opaque
set bars small
set samples 400
set arrow 1 from dval, graph 0 to dval, graph 1 nohead dt 3 lc rgb "#555555"
set label 1 sprintf("n = d = %d", dval) at dval, graph 0.05 offset 0.5, 0 font ",9"
plot $dense  using 1:2:3 with yerrorbars pt 7 ps 1.0 lc rgb "#1f77b4" title "dense: Monte-Carlo mean ± s.e.", \
     $sparse using 1:2:3 with yerrorbars pt 5 ps 1.0 lc rgb "#d62728" title "sparse: Monte-Carlo mean ± s.e.", \
     $sparse using 1:4 with lines lw 2 lc rgb "#d62728" title "sparse: exact", \
     $dense  using 1:5 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "dense: leading order", \
     $sparse using 1:5 with lines lw 1.5 dt 2 lc rgb "#d62728" title "sparse: leading order", \
     (have_dense_fit ? dense_fit(x) : NaN) with lines lw 1 dt 4 lc rgb "#17becf" title "dense: fit a/n^2 + b/n (n > d)", \
     (have_sparse_fit ? sparse_fit(x) : NaN) with lines lw 1 dt 4 lc rgb "#ff7f0e" title "sparse: fit a/n^2 + b/n (n > d)"
}
