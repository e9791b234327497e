# noisy, Fig. 3: excess risk of the min-norm dense and sparse estimators vs sample size n (log-log).
# Usage: gnuplot -e "csv='results/noisy_fig3.csv'; png='results/noisy_fig3.png'" plots/noisy_fig3.gp
# CSV columns: n,estimator,trials,excess_mean,excess_std_error,excess_exact,excess_leading,fallbacks
# ('#' metadata lines first, then the header; estimator is "dense" or "sparse"; "nan" = undefined).
if (!exists("csv")) csv = 'results/noisy_fig3.csv'
if (!exists("png")) png = 'results/noisy_fig3.png'
if (!exists("plot_title")) plot_title = "noisy Fig. 3: excess risk of the min-norm estimators vs n"

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1000,700 enhanced font ",11"
} else {
  set terminal png size 1000,700
}

# Split the tidy CSV into one datablock per estimator (columns: n, mean, std_error, exact, leading),
# so that each curve is drawn through its own rows only.
set datafile separator comma
set datafile columnheaders
set table $dense
plot csv using 1:4:5:6:7 with table if (strcol(2) eq "dense")
set table $sparse
plot csv using 1:4:5:6:7 with table if (strcol(2) eq "sparse")
unset table
set datafile separator whitespace
set datafile nocolumnheaders

set output png
set title plot_title
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
