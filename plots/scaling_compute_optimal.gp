# Compute-optimal active parameters and tokens vs training FLOPs (F = 6 N D), closed form and Brent.
# Usage: gnuplot -e "csv='results/scaling_compute_optimal.csv'; png='results/scaling_compute_optimal.png'" plots/scaling_compute_optimal.gp
# CSV columns: F,flops_per_param_token,E0,A,alpha_N,B,alpha_D,N_opt,D_opt,loss,N_opt_numeric,loss_numeric,
#              exponent_N,exponent_D,approximation_rate_at_N_opt
if (!exists("csv")) csv = 'results/scaling_compute_optimal.csv'
if (!exists("png")) png = 'results/scaling_compute_optimal.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1400,600 enhanced font ",11"
} else {
  set terminal png size 1400,600
}
set output png
set datafile separator comma
set datafile columnheaders
ex = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 2 {print $13, $14}'", csv))
set multiplot layout 1, 2 title sprintf("Compute-optimal frontier, L = E_0 + A N^{-{/Symbol a}_N} + B D^{-{/Symbol a}_D} (Hoffmann et al. constants): N ∝ F^{%.3f}, D ∝ F^{%.3f}", word(ex, 1) + 0, word(ex, 2) + 0)
set grid
set logscale x
set format x "10^{%L}"
set xlabel "training FLOPs F"
set key top left
set logscale y
set format y "10^{%L}"
set title "allocation"
plot csv using 1:8 with lines lw 2 title "N_{act} (closed form)", \
     csv using 1:11 with points pt 6 title "N_{act} (Brent)", \
     csv using 1:9 with lines lw 2 title "tokens D"
unset logscale y
set format y "%g"
set ylabel "loss"
set title "loss at the optimum"
plot csv using 1:10 with lines lw 2 title "L(N_{opt}, D_{opt})", csv using 1:12 with points pt 6 title "Brent"
unset multiplot
