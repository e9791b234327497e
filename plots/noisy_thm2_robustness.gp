# noisy, Thm 2/3: Bayes risks of the dense and sparse estimators vs feature-noise variance sigma_o2.
# Usage: gnuplot -e "csv='results/noisy_thm2_robustness.csv'; png='results/noisy_thm2_robustness.png'" plots/noisy_thm2_robustness.gp
# CSV columns: sigma_o2,eta,estimator,mc_mean,mc_std_error,printed,exact,samples
# ('#' metadata lines first, then the header; estimator is "dense" or "sparse"; "nan" = undefined).
# x axis: feature-noise variance σ_o^2 (column 1); rows are assumed to hold the other parameter fixed.
if (!exists("csv")) csv = 'results/noisy_thm2_robustness.csv'
if (!exists("png")) png = 'results/noisy_thm2_robustness.png'
if (!exists("plot_title")) plot_title = "noisy Thm 2/3: dense vs sparse risk as the feature noise grows"

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1000,700 enhanced font ",11"
} else {
  set terminal png size 1000,700
}

# One datablock per estimator (columns: x, mc_mean, mc_std_error, printed, exact), sorted by x.
set datafile separator comma
set datafile columnheaders
set table $dense
plot csv using 1:4:5:6:7 with table if (strcol(3) eq "dense")
set table $sparse
plot csv using 1:4:5:6:7 with table if (strcol(3) eq "sparse")
unset table
set datafile separator whitespace
set datafile nocolumnheaders

set output png
set title plot_title
set xlabel "feature-noise variance σ_o^2"
set ylabel "risk"
set grid
set key top left box opaque
set bars small
plot $dense  using 1:2:3 with yerrorbars pt 7 ps 1.0 lc rgb "#1f77b4" title "dense: Monte-Carlo mean ± s.e.", \
     $sparse using 1:2:3 with yerrorbars pt 5 ps 1.0 lc rgb "#d62728" title "sparse: Monte-Carlo mean ± s.e.", \
     $dense  using 1:4 with lines lw 1.5 dt 2 lc rgb "#1f77b4" title "dense: as printed", \
     $sparse using 1:4 with lines lw 1.5 dt 2 lc rgb "#d62728" title "sparse: as printed", \
     $dense  using 1:5 with lines lw 1.5 lc rgb "#1f77b4" title "dense: exact", \
     $sparse using 1:5 with lines lw 1.5 lc rgb "#d62728" title "sparse: exact"
