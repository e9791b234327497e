# The granularity paper's Fig. 1 toy (study moe.granularity_toy): normalised test MSE of the three
# MoEs at equal active expert parameters, mean +- s.e. over seeds, with the range over seeds, and the
# exact constructions' error (0 up to rounding) where one exists.
# Usage: gnuplot -e "csv='results/moe_granularity_toy.csv'; png='results/moe_granularity_toy.png'" plots/moe_granularity_toy.gp
if (!exists("csv")) csv = 'results/moe_granularity_toy.csv'
if (!exists("png")) png = 'results/moe_granularity_toy.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -1", key, csv))
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 900,600 enhanced font ",11" } else { set terminal png size 900,600 }
  set output png
} else {
  set terminal svg size 900,600 enhanced font ",11" dynamic background "white"
  set output svg
}
set datafile separator comma
set datafile columnheaders
set title sprintf("%s\n%s; bars: mean +- s.e.; whiskers: range over seeds", meta("title"), meta("trials"))
set grid y
set ylabel "test MSE / Var(y)"
set logscale y
set xrange [-0.5:2.5]
set key top left box opaque
label(m, k) = sprintf("%d experts, top-%d", m, k)
plot csv using 0:"normalized_mse":"normalized_mse_min":"normalized_mse_max":xticlabels(label(column("m"), column("k"))) \
       with yerrorbars lw 1 pt 0 lc rgb "gray50" title "range over seeds", \
     csv using 0:"normalized_mse":"normalized_mse_se" with yerrorbars lw 3 pt 7 ps 1.5 lc rgb "#1f77b4" title "trained, mean +- s.e."
unset logscale y
}
