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
set table $dense
plot csv using "n":"excess_mean":"excess_std_error":"excess_exact":"excess_leading" with table if (strcol("estimator") eq "dense")
set table $sparse
plot csv using "n":"excess_mean":"excess_std_error":"excess_exact":"excess_leading" with table if (strcol("estimator") eq "sparse")
unset table
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
plot $dense  using 1:2:3 with yerrorbars pt 7 ps 1.0 lc rgb "#1f77b4" title "dense: Monte-Carlo mean ± s.e.", \
     $sparse using 1:2:3 with yerrorbars pt 5 ps 1.0 lc rgb "#d62728" title "sparse: Monte-Carlo mean ± s.e.", \
     $sparse using 1:4 with lines lw 2 lc rgb "#d62728" title "sparse: exact", \
     $dense  using 1:5 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "dense: leading order", \
     $sparse using 1:5 with lines lw 1.5 dt 2 lc rgb "#d62728" title "sparse: leading order"
}
